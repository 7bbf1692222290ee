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
  const temp = lib.need('RUNNER_TEMP');
  const receipt = path.join(temp, 'footprint-receipt.json');
  const summary = path.join(temp, 'footprint-summary.md');
  /* what is there now was not written by this stop */
  fs.rmSync(receipt, { force: true });
  fs.rmSync(summary, { force: true });
  const env = { ...process.env };
  delete env.RUNNER_TRACKING_ID;
  const r = lib.sudo(process.env.STATE_footprint || 'footprint',
                     ['sidecar', 'stop', '--state', state, '--receipt', receipt,
                      '--summary', summary, '--annotations'], env);
  if (fs.existsSync(summary) && process.env.GITHUB_STEP_SUMMARY) {
    const text = fs.readFileSync(summary);
    fs.appendFileSync(process.env.GITHUB_STEP_SUMMARY,
                      text.length > SUMMARY_MAX ? 'footprint: the summary is too large; see the receipt\n' : text);
  }
  if (fs.existsSync(receipt)) lib.fileCommand('GITHUB_OUTPUT', 'receipt', receipt);
  if (!r.error && !r.signal && r.status === 0) return;
  if (!r.error && !r.signal && r.status === 1)
    throw new lib.Fail(`the verdict failed: see the job summary and ${receipt}`);
  throw new lib.Fail(`the sidecar could not be stopped and judged (${lib.how(r)}), so nothing says the job was clean`);
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
