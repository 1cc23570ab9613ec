-- soak.lua - wrk script for the soak (tests/bench/soak.sh): every connection
-- cycles through a mix of cached, uncached, upload and error requests, and
-- done() writes one JSON line to $SOAK_OUT with the answers counted by class.
--
-- Each wrk thread runs its own Lua state: setup() keeps the threads so that
-- done() can add up their counters.

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   local f = assert(io.open(os.getenv("SOAK_UPLOAD"), "rb"))
   local body = f:read("*a")
   f:close()
   local pkg = os.getenv("SOAK_PACKAGE")
   reqs = {
      -- cached: the same question again
      wrk.format("GET", "/v1/inspect?path=" .. pkg),
      -- uncached: opened and rendered every time
      wrk.format("GET", "/v1/inspect?path=" .. pkg .. "&nocache=1"),
      -- an upload, spooled and inspected
      wrk.format("POST", "/v1/inspect", {["Content-Type"] = "application/octet-stream"}, body),
      -- client errors: a missing package, an escape, a malformed body
      wrk.format("GET", "/v1/inspect?path=missing.pt2"),
      wrk.format("GET", "/v1/inspect?path=../etc/passwd"),
      wrk.format("POST", "/v1/validate?path=" .. pkg, {["Content-Type"] = "application/json"},
                 "{not json"),
   }
   n = 0
   ok, client_err, overloaded, server_err = 0, 0, 0, 0
end

function request()
   n = n % #reqs + 1
   return reqs[n]
end

function response(status, headers, body)
   if status < 400 then
      ok = ok + 1
   elseif status == 503 then
      overloaded = overloaded + 1
   elseif status >= 500 then
      server_err = server_err + 1
   else
      client_err = client_err + 1
   end
end

function done(summary, latency, requests)
   local t = {ok = 0, client_err = 0, overloaded = 0, server_err = 0}
   for _, thread in ipairs(threads) do
      for k, _ in pairs(t) do
         t[k] = t[k] + (thread:get(k) or 0)
      end
   end
   local e = summary.errors
   local f = assert(io.open(os.getenv("SOAK_OUT"), "a"))
   f:write(string.format(
      '{"requests":%d,"duration_us":%d,"rps":%.1f,"p50_us":%d,"p99_us":%d,"max_us":%d,' ..
      '"ok":%d,"client_errors":%d,"overloaded":%d,"server_errors":%d,' ..
      '"errors_connect":%d,"errors_read":%d,"errors_write":%d,"errors_timeout":%d}\n',
      summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
      latency:percentile(50), latency:percentile(99), latency.max,
      t.ok, t.client_err, t.overloaded, t.server_err,
      e.connect, e.read, e.write, e.timeout))
   f:close()
end
