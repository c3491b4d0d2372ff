// Plain DOM calls rather than a framework: the page must work from a daemon with no network
// and no build step, and textContent is the one rule that keeps a job's own text inert.
#include "web/dashboard_page.h"

namespace web {
namespace {

constexpr std::string_view k_html = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>slurm-supervisor</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard.css">
<script src="/dashboard.js" defer></script>
</head>
<body>
<header>
<h1><a href="#">slurm-supervisor</a></h1>
<nav><a href="#">Jobs</a> · <a href="#nodes">Suspect nodes</a></nav>
<p id="daemon" aria-live="polite">asking the daemon…</p>
</header>
<main>
<section id="list-view">
<h2>Watched jobs</h2>
<p><label><input type="checkbox" id="show-all"> finished and unregistered jobs too</label></p>
<p id="list-note" aria-live="polite"></p>
<div class="scroll">
<table id="jobs">
<thead><tr><th>Job</th><th>Name</th><th>Status</th><th>Attempt</th><th>Last cause</th><th>Checkpoint</th></tr></thead>
<tbody><tr><td colspan="6">loading…</td></tr></tbody>
</table>
</div>
<p><button type="button" id="more" hidden>Show more jobs</button></p>
</section>
<section id="nodes-view" hidden>
<h2>Suspect nodes</h2>
<p id="nodes-note" aria-live="polite"></p>
<div class="scroll">
<table id="nodes">
<thead><tr><th>Node</th><th>Failures</th><th>Jobs</th><th>Drained</th><th>Last reported</th></tr></thead>
<tbody><tr><td colspan="5">loading…</td></tr></tbody>
</table>
</div>
</section>
<section id="job-view" hidden>
<p><a href="#">← all jobs</a></p>
<h2 id="job-title"></h2>
<dl id="job-facts"></dl>
<h3>Attempts</h3>
<ol id="attempts"></ol>
<h3>Diagnoses and what was done</h3>
<ol id="timeline"></ol>
</section>
</main>
</body>
</html>
)html";

constexpr std::string_view k_css = R"css(
body { font-family: system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
header { background: #20344a; color: #fff; padding: 0.5rem 1rem; }
header h1 { font-size: 1.2rem; margin: 0; }
header a { color: #fff; text-decoration: none; }
header p, header nav { margin: 0.2rem 0 0; font-size: 0.85rem; }
main { padding: 0.5rem 1rem 2rem; max-width: 70rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { text-align: left; padding: 0.35rem 0.5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td.path { word-break: break-all; }
.status-recovering { color: #a35200; font-weight: bold; }
.status-credential_error { color: #b00020; font-weight: bold; }
.status-completed { color: #2e6b30; }
.stale { color: #b00020; font-weight: bold; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; }
dt { font-weight: bold; }
dd { margin: 0; word-break: break-word; }
ol { padding-left: 1.2rem; }
li { margin-bottom: 0.6rem; }
.when { color: #555; font-size: 0.8rem; display: block; }
.kind { font-weight: bold; }
pre { white-space: pre-wrap; word-break: break-all; background: #eef; padding: 0.3rem; margin: 0.2rem 0; font-size: 0.8rem; }
.withheld { color: #a35200; }
@media (max-width: 40rem) {
  th:nth-child(2), td:nth-child(2), th:nth-child(6), td:nth-child(6) { display: none; }
  main { padding: 0.5rem; }
}
)css";

constexpr std::string_view k_js = R"js('use strict';
const refreshMs = 5000;
const pageSize = 100;
let shownJob = null;
let shownPages = 1;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

async function api(path) {
  const response = await fetch('/api/v1/' + path, { credentials: 'same-origin' });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((body.error || response.statusText) + (body.hint ? ' (' + body.hint + ')' : ''));
  return body;
}

async function showDaemon() {
  const line = document.getElementById('daemon');
  try {
    const d = await api('daemon');
    const age = d.last_cycle_age_s;
    const late = age === null || age * 1000 > 3 * Math.max(d.poll_interval_ms, 1000);
    line.textContent = 'daemon on ' + d.host + ' (pid ' + d.pid + '): ' +
      (age === null ? 'no poll cycle yet' : 'last cycle ' + age + ' s ago');
    line.className = late ? 'stale' : '';
  } catch (error) {
    line.textContent = 'daemon not answering: ' + error.message;
    line.className = 'stale';
  }
}

function jobLink(job) {
  const a = el('a', job);
  a.href = '#job=' + encodeURIComponent(job);
  return a;
}

async function showList() {
  const note = document.getElementById('list-note');
  const all = document.getElementById('show-all').checked;
  try {
    // The API answers a page at a time; the pages shown so far, each after the last one's end.
    const jobs = [];
    let full = true;
    for (let page = 0; page < shownPages && full; page++) {
      const after = jobs.length ? '&after=' + encodeURIComponent(jobs[jobs.length - 1].job) : '';
      const got = await api('jobs?limit=' + pageSize + (all ? '&all=1' : '') + after);
      jobs.push(...got);
      full = got.length === pageSize;
    }
    document.getElementById('more').hidden = !full;
    const body = document.querySelector('#jobs tbody');
    const rows = jobs.map((j) => {
      const tr = el('tr');
      tr.dataset.job = j.job;
      const first = el('td');
      first.appendChild(jobLink(j.job));
      tr.appendChild(first);
      tr.appendChild(el('td', j.name));
      tr.appendChild(el('td', j.status + (j.outcome ? ' (' + j.outcome + ')' : ''), 'status-' + j.status));
      tr.appendChild(el('td', j.attempt + ' of ' + j.max_attempts));
      tr.appendChild(el('td', j.last_cause || '—'));
      tr.appendChild(el('td', j.last_checkpoint || '—', 'path'));
      return tr;
    });
    body.replaceChildren(...rows);
    note.textContent = jobs.length === 0 ? 'No job is watched.' : jobs.length + ' job(s); updated ' + new Date().toLocaleTimeString();
  } catch (error) {
    note.textContent = 'Could not read the jobs: ' + error.message;
  }
}

function fact(list, name, value) {
  if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) return;
  list.appendChild(el('dt', name));
  list.appendChild(el('dd', Array.isArray(value) ? value.join(', ') : value));
}

function eventItem(e) {
  const li = el('li');
  li.dataset.kind = e.kind;
  li.appendChild(el('span', e.at, 'when'));
  li.appendChild(el('span', e.kind + ': ', 'kind'));
  li.appendChild(el('span', e.message));
  const d = e.data || {};
  if (e.kind === 'diagnosis') {
    if (d.summary) li.appendChild(el('p', d.summary));
    for (const line of (d.evidence || []).slice(0, 8)) {
      li.appendChild(el('pre', (line.file ? line.file + (line.line ? ':' + line.line : '') + ': ' : '') + line.text));
    }
    for (const w of d.withheld_actions || []) li.appendChild(el('p', 'withheld: ' + JSON.stringify(w), 'withheld'));
  }
  if (Array.isArray(d.would_have_done)) {
    for (const w of d.would_have_done) li.appendChild(el('p', 'would have done: ' + w, 'withheld'));
  }
  return li;
}

async function showJob(job) {
  document.getElementById('job-title').textContent = 'Job ' + job;
  try {
    const [listed, events] = await Promise.all([api('jobs/' + encodeURIComponent(job)), api('jobs/' + encodeURIComponent(job) + '/events')]);
    const j = listed[0];  // as `status JOB --json`: a list (an array's id lists its tasks)
    const facts = document.getElementById('job-facts');
    facts.replaceChildren();
    fact(facts, 'Name', j.name);
    fact(facts, 'Status', j.status + (j.outcome ? ' (' + j.outcome + ')' : ''));
    fact(facts, 'Why', j.reason);
    fact(facts, 'Attempt', j.attempt + ' of ' + j.max_attempts);
    fact(facts, 'Last cause', j.last_cause);
    fact(facts, 'Checkpoint', j.last_checkpoint);
    fact(facts, 'Allowed fixes', j.allowed_actions);
    fact(facts, 'Excluded nodes', j.excluded_nodes);
    fact(facts, 'Slurm state', j.last_slurm_state);
    const attempts = document.getElementById('attempts');
    attempts.replaceChildren(...(j.attempts || []).map((a) => el('li',
      'attempt ' + a.number + ' on ' + (a.nodes || '?') + ', started ' + (a.started_at || '?') +
      (a.ended_at ? ', ended ' + a.ended_at + ' ' + a.final_state : ', running') +
      (a.cause ? ', cause ' + a.cause : '') + (a.resumed_from ? ', resumed from ' + a.resumed_from : ''))));
    const shown = events.filter((e) => e.kind !== 'observed');
    document.getElementById('timeline').replaceChildren(...shown.map(eventItem));
  } catch (error) {
    document.getElementById('job-facts').replaceChildren(el('dd', error.message));
  }
}

async function showNodes() {
  const note = document.getElementById('nodes-note');
  try {
    const nodes = await api('nodes');
    document.querySelector('#nodes tbody').replaceChildren(...nodes.map((n) => {
      const tr = el('tr');
      tr.dataset.node = n.node;
      for (const value of [n.node, n.failures, n.jobs, n.drained ? 'yes' : 'no', n.at]) tr.appendChild(el('td', value));
      return tr;
    }));
    note.textContent = nodes.length === 0 ? 'No node is suspect.' : nodes.length + ' suspect node(s), each with its latest report.';
  } catch (error) {
    document.querySelector('#nodes tbody').replaceChildren();
    note.textContent = error.message;
  }
}

let shownNodes = false;

function route() {
  const match = /^#job=(.+)$/.exec(location.hash);
  shownJob = match ? decodeURIComponent(match[1]) : null;
  shownNodes = location.hash === '#nodes';
  document.getElementById('list-view').hidden = shownJob !== null || shownNodes;
  document.getElementById('nodes-view').hidden = !shownNodes;
  document.getElementById('job-view').hidden = shownJob === null;
  refresh();
}

function refresh() {
  showDaemon();
  if (shownNodes) showNodes(); else if (shownJob === null) showList(); else showJob(shownJob);
}

window.addEventListener('hashchange', route);
document.addEventListener('DOMContentLoaded', () => {
  document.getElementById('show-all').addEventListener('change', refresh);
  document.getElementById('more').addEventListener('click', () => { shownPages++; refresh(); });
  route();
  setInterval(refresh, refreshMs);
});
)js";

}  // namespace

std::optional<StaticFile> dashboard_file(std::string_view path) {
    if (path == "/" || path == "/index.html") {
        return StaticFile{"text/html; charset=utf-8", k_html};
    }
    if (path == "/dashboard.js") {
        return StaticFile{"text/javascript; charset=utf-8", k_js};
    }
    if (path == "/dashboard.css") {
        return StaticFile{"text/css; charset=utf-8", k_css};
    }
    return std::nullopt;
}

}  // namespace web
