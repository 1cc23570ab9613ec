-- report.lua - wrk script: appends one JSON line per run to $BENCH_OUT.
--
-- wrk prints its summary for people; run.sh needs numbers. done() gets the
-- same figures wrk prints (latency in microseconds) and writes them with the
-- run's label ($BENCH_LABEL), connection count ($BENCH_CONNS) and round
-- ($BENCH_ROUND).

function done(summary, latency, requests)
   local out = os.getenv("BENCH_OUT")
   if out == nil then
      return
   end
   local e = summary.errors
   local f = assert(io.open(out, "a"))
   f:write(string.format(
      '{"label":"%s","connections":%d,"round":%d,"requests":%d,"duration_us":%d,' ..
      '"rps":%.1f,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,' ..
      '"errors_connect":%d,"errors_read":%d,"errors_write":%d,' ..
      '"errors_status":%d,"errors_timeout":%d}\n',
      os.getenv("BENCH_LABEL") or "run", tonumber(os.getenv("BENCH_CONNS") or "0"),
      tonumber(os.getenv("BENCH_ROUND") or "1"),
      summary.requests, summary.duration,
      summary.requests / (summary.duration / 1e6),
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
      e.connect, e.read, e.write, e.status, e.timeout))
   f:close()
end
