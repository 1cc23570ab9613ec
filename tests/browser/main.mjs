// main.mjs - run the browser stage's tests one after another and print one
// line per test and "browser: N passed, N failed" (the form tests/run.sh
// counts). Environment (tests/browser/run.sh sets it): BASE_URL of a running
// pt2scoped over tests/fixtures (DOCS_URL: one for the /docs examples),
// CHROMIUM (Debian's browser binary), SHOTS (the folder for screenshots).
import { chromium } from 'playwright-core';
import { pageTests } from './page.test.mjs';
import { docsTests } from './docs.test.mjs';

const env = {
  base: process.env.BASE_URL,
  docs: process.env.DOCS_URL || process.env.BASE_URL,
  shots: process.env.SHOTS || 'build/browser',
  chromium: process.env.CHROMIUM,
};
if (!env.base || !env.chromium) {
  console.log('browser: BASE_URL and CHROMIUM must be set (run tests/browser/run.sh)');
  console.log('browser: 0 passed, 1 failed');
  process.exit(1);
}

let pass = 0;
let fail = 0;

async function runOne(name, fn, ctx) {
  const t0 = Date.now();
  try {
    await fn(ctx);
    pass++;
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    fail++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
  }
}

// The docs examples need no browser.
for (const [name, fn] of docsTests) await runOne(name, fn, { env });

let browser;
try {
  // The sandbox needs user namespaces a root CI container may not give.
  browser = await chromium.launch({ executablePath: env.chromium, headless: true, args: ['--no-sandbox'] });
} catch (e) {
  fail++;
  console.log(`FAIL launch chromium (${env.chromium}): ${e && e.message ? e.message : e}`);
}
if (browser) {
  for (const [name, fn, opts] of pageTests) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...(opts || {}) });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await runOne(name, async (ctx) => {
      await fn(ctx);
      if (errors.length) throw new Error(`script errors on the page: ${errors.join('; ')}`);
    }, { env, page, context });
    await context.close();
  }
  await browser.close();
}
console.log(`browser: ${pass} passed, ${fail} failed`);
process.exit(fail === 0 ? 0 : 1);
