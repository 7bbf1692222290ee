'use strict';
/*
 * post (post-if: always()): stop the sidecar, which drains, judges and
 * writes the receipt and the summary; append the summary to the job's,
 * and fail the job in gate mode when the verdict failed or footprint
 * could not say (fail closed). In audit mode both are warnings.
 */
const fs = require('fs');
const path = require('path');
const lib = require('./lib');

const SUMMARY_MAX = 1 << 20; /* GitHub refuses a larger step summary */

function stop() {
  const state = process.env.STATE_state;
  if (!state) throw new lib.Fail('the sidecar was never started (the action\'s main step did not get that far); nothing was traced');
  /* the footprint main ran, by its path: never one looked up again */
  const fp = process.env.STATE_footprint;
  if (!fp || !path.isAbsolute(fp))
    throw new lib.Fail('the main step recorded no footprint to stop the sidecar with; nothing says the job was clean');
  const temp = lib.need('RUNNER_TEMP');
  const receipt = path.join(temp, 'footprint-receipt.json');
  const summary = path.join(temp, 'footprint-summary.md');
  /* what is there now was not written by this stop */
  fs.rmSync(receipt, { force: true });
  fs.rmSync(summary, { force: true });
  const args = ['sidecar', 'stop', '--state', state, '--receipt', receipt,
                '--summary', summary, '--annotations'];
  /* the daemon main started: stop fails with a tamper finding on another */
  if (process.env.STATE_daemon) args.push('--daemon', process.env.STATE_daemon);
  const r = lib.sudo(fp, args);
  if (fs.existsSync(summary) && process.env.GITHUB_STEP_SUMMARY) {
    const text = fs.readFileSync(summary);
    fs.appendFileSync(process.env.GITHUB_STEP_SUMMARY,
                      text.length > SUMMARY_MAX ? 'footprint: the summary is too large; see the receipt\n' : text);
  }
  if (r.error || r.signal || (r.status !== 0 && r.status !== 1))
    throw new lib.Fail(`the sidecar could not be stopped and judged (${lib.how(r)}), so nothing says the job was clean`);
  /* the verdict is the receipt's; the exit code must agree with it */
  const doc = lib.readReceipt(receipt);
  if (!doc)
    throw new lib.Fail(`footprint wrote no readable receipt (${lib.how(r)}), so nothing says the job was clean`);
  lib.fileCommand('GITHUB_OUTPUT', 'receipt', receipt);
  if (r.status === 0 && doc.ok === true) return;
  if (r.status === 1 && doc.ok === false)
    throw new lib.Fail(`the verdict failed: see the job summary and ${receipt}`);
  throw new lib.Fail(`footprint exited ${r.status} but its receipt says ok: ${doc.ok}; failing closed`);
}

let mode = 'gate';
try {
  mode = lib.mode();
} catch (e) {
  lib.command('error', `${e.message}; judging as gate`);
}
try {
  stop();
} catch (e) {
  const msg = e instanceof lib.Fail ? e.message : e.stack;
  if (mode === 'audit') {
    lib.command('warning', `${msg} (mode: audit, the job goes on)`);
  } else {
    lib.command('error', msg);
    process.exitCode = 1;
  }
}
