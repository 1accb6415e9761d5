#!/usr/bin/env node
// The package in headless Chromium: node test/browser.mjs DIR [CHROMIUM]. Serves the repository's
// js/ and DIR on 127.0.0.1, opens test/page.html in `chromium --headless=new` with WebGPU enabled
// (SwiftShader on a machine without a GPU), and takes the results the page POSTs back.
// Exit 0 when every case passes; 1 on a failure, 2 when the browser reports nothing in time.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(process.argv[2]);
const chromium = process.argv[3] ?? 'chromium';
const js = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.json': 'application/json' };

function within(root, rel) {
  const file = path.resolve(root, rel);
  return file.startsWith(root + path.sep) ? file : null;
}

let browser;
let finished = false;
const profile = mkdtempSync(path.join(os.tmpdir(), 'dyngc-chromium-'));
// The profile goes once the browser has exited (it writes there until then).
function finish(code, message) {
  if (finished) return;
  finished = true;
  if (message) console.log(message);
  // Chromium's helper processes (GPU, zygote) write to the profile after the browser's own
  // exit: end its whole process group, then retry the removal for a while.
  const done = (tries = 20) => {
    try {
      rmSync(profile, { recursive: true, force: true });
    } catch (e) {
      if (tries > 0) return setTimeout(() => done(tries - 1), 100);
      console.log(`(could not remove ${profile}: ${e.message})`);
    }
    process.exit(code);
  };
  if (browser && browser.exitCode === null && browser.signalCode === null) {
    browser.on('exit', () => done());
    try {
      process.kill(-browser.pid, 'SIGTERM');
    } catch {
      browser.kill();
    }
  } else {
    done();
  }
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (req.method === 'POST') {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      res.end('ok');
      const r = JSON.parse(body);
      if (finished) return;
      if (url.pathname === '/progress') {
        console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.label}${r.ok ? '' : `: ${r.problems.join('; ')}`}`);
        return;
      }
      if (r.error) finish(1, `browser: ${r.error}`);
      const failed = r.results.filter((x) => !x.ok).length;
      finish(failed ? 1 : 0, `chromium (${r.adapter}): ${r.results.length - failed} of ${r.results.length} cases passed`);
    });
    return;
  }
  const file = url.pathname === '/' ? path.join(js, 'test/page.html')
    : url.pathname.startsWith('/cases/') ? within(dir, url.pathname.slice(7))
      : url.pathname.startsWith('/js/') ? within(js, url.pathname.slice(4)) : null;
  try {
    const data = readFileSync(file);
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(data);
  } catch {
    res.writeHead(404);
    res.end();
  }
});

server.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}/`;
  browser = spawn(chromium, ['--headless=new', '--no-sandbox', '--enable-unsafe-webgpu', `--user-data-dir=${profile}`,
    '--disable-background-networking', '--no-first-run', url], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  browser.stderr.on('data', (d) => { stderr += d; });
  browser.on('exit', (code) => finish(2, `chromium exited (${code}) before the page reported:\n${stderr.slice(-4000)}`));
  browser.on('error', (e) => finish(2, `could not start ${chromium}: ${e.message}`));
  setTimeout(() => finish(2, `no results from the page within 20 minutes:\n${stderr.slice(-4000)}`), 20 * 60_000).unref();
});
