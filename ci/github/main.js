'use strict';
/*
 * main: start the sidecar; it returns once tracing is live, so every
 * later step of the job is traced. post.js stops it and judges.
 */
const fs = require('fs');
const path = require('path');
const lib = require('./lib');

function list(s) {
  return s.split(/[\n,]/).map((x) => x.trim()).filter(Boolean);
}

function main() {
  lib.mode(); /* a typo must not wait for the post step to show */
  const temp = lib.need('RUNNER_TEMP');
  const roots = list(lib.input('roots') || process.env.GITHUB_WORKSPACE || '');
  if (!roots.length) throw new lib.Fail('no root to watch: give the roots input');
  const fp = require('./install').ensure(lib.input('footprint') || 'footprint');
  const state = path.join(temp, 'footprint-state');
  const args = ['sidecar', 'start', '--state', state];
  for (const r of roots) args.push('--root', path.resolve(r));
  if (lib.input('policy')) args.push('--policy', path.resolve(lib.input('policy')));
  if (lib.input('record')) args.push('--record', path.resolve(lib.input('record')));

  /* before the start: post stops whatever got started, even half; and
   * post runs this footprint, by this path, not one a step put on PATH */
  lib.fileCommand('GITHUB_STATE', 'state', state);
  lib.fileCommand('GITHUB_STATE', 'footprint', fp);
  /* opened now, written once the sidecar runs: a write through an fd
   * opened before the trace is not an open the job made (the runner's
   * state file is outside the roots) */
  const stateFd = fs.openSync(lib.need('GITHUB_STATE'), 'a');
  /* the runner's orphan killer ends every process carrying
   * RUNNER_TRACKING_ID: lib.sudo leaves it out */
  const r = lib.sudo(fp, [...args, '--json'], 'pipe');
  if (r.error || r.status !== 0)
    throw new lib.Fail(`the sidecar did not start (${lib.how(r)}); nothing is traced and the job fails`);
  /* the daemon's identity (pid and start time): post refuses another */
  let daemon = null;
  try {
    daemon = JSON.parse(r.stdout.trim().split('\n').pop()).daemon;
  } catch {}
  if (typeof daemon !== 'string' || !/^[0-9]+:[0-9]+$/.test(daemon))
    throw new lib.Fail(`footprint sidecar start did not say which daemon it started (${JSON.stringify(r.stdout)}); the job fails`);
  fs.writeSync(stateFd, `daemon=${daemon}\n`);
  fs.closeSync(stateFd);
}

try {
  main();
} catch (e) {
  lib.command('error', e instanceof lib.Fail ? e.message : e.stack);
  process.exitCode = 1;
}
