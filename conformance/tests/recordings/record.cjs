// Records page.html in Chromium as HAR, through the DevTools protocol
// (puppeteer-core drives Debian's chromium; chrome-har turns the protocol's
// events into HAR, as real teams record). Run by record.sh, which installs
// both from npm and starts the reference server; this serves the page and
// forwards /v2/ to that server from the same origin (no CORS), so the page
// calls the interface as a web client of it would.
//
// Writes chromium-correct.har (the page as written) and
// chromium-mistake.har (`?mistake`: its JSON body sent without a
// Content-Type, so as text/plain), scrubbed of what differs between
// machines and runs: the page server's port (8080 in the fixture), dates.
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");
const puppeteer = require("puppeteer-core");
const { harFromMessages } = require("chrome-har");

const upstream = new URL(process.env.REFERENCE_URL);
const out = process.env.OUT_DIR || __dirname;
const page = fs.readFileSync(path.join(__dirname, "page.html"));

// What chrome-har reads.
const EVENTS = [
  "Page.loadEventFired",
  "Page.domContentEventFired",
  "Page.frameStartedLoading",
  "Page.frameAttached",
  "Page.frameScheduledNavigation",
  "Network.requestWillBeSent",
  "Network.requestWillBeSentExtraInfo",
  "Network.requestServedFromCache",
  "Network.dataReceived",
  "Network.responseReceived",
  "Network.responseReceivedExtraInfo",
  "Network.resourceChangedPriority",
  "Network.loadingFinished",
  "Network.loadingFailed",
];

function serve() {
  const server = http.createServer((req, res) => {
    if (req.url === "/" || req.url.startsWith("/?")) {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      return res.end(page);
    }
    if (!req.url.startsWith("/v2/")) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      return res.end("not found\n");
    }
    const headers = { ...req.headers, host: upstream.host };
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    forwarded.on("error", (e) => {
      res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(forwarded);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function scrub(har, port) {
  const text = JSON.stringify(har, null, 2)
    .split(`127.0.0.1:${port}`)
    .join("127.0.0.1:8080")
    .replace(/"startedDateTime": "[^"]*"/g, '"startedDateTime": "2026-01-01T00:00:00.000Z"')
    .replace(/"(expires|date)": "[^"]*"/gi, '"$1": "Thu, 01 Jan 2026 00:00:00 GMT"')
    .replace(/("name": "(?:date|Date)",\s*"value": )"[^"]*"/g, '$1"Thu, 01 Jan 2026 00:00:00 GMT"');
  return text + "\n";
}

async function record(browser, url) {
  const tab = await browser.newPage();
  const cdp = await tab.createCDPSession();
  const events = [];
  for (const method of EVENTS) {
    cdp.on(method, (params) => events.push({ method, params }));
  }
  await cdp.send("Page.enable");
  await cdp.send("Network.enable");
  await tab.goto(url, { waitUntil: "load" });
  await tab.waitForFunction(() => document.title !== "Component auth", { timeout: 60000 });
  const title = await tab.title();
  if (title !== "done") throw new Error(`${url}: ${title}`);
  // The favicon's request, which Chromium makes after the load.
  await new Promise((r) => setTimeout(r, 500));
  await tab.close();
  return harFromMessages(events, { includeTextFromResponseBody: false });
}

async function main() {
  const server = await serve();
  const port = server.address().port;
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    // As root in a container: Chromium's sandbox needs user namespaces.
    args: ["--no-sandbox", "--no-first-run", "--no-default-browser-check"],
  });
  try {
    for (const [name, query] of [["correct", ""], ["mistake", "?mistake"]]) {
      const har = await record(browser, `http://127.0.0.1:${port}/${query}`);
      const file = path.join(out, `chromium-${name}.har`);
      fs.writeFileSync(file, scrub(har, port));
      console.log(`wrote ${file}: ${har.log.entries.length} entries`);
    }
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
