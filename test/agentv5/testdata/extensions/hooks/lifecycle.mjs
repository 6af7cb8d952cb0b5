// Lifecycle hooks of the extensions suite: each leaves a line in the workdir's log.txt, which
// the target reads back, so the tests see what ran before them and with which context.
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function log(ctx, line) {
  appendFileSync(path.join(ctx.workspace_path, 'log.txt'), `${line}\n`);
}

export async function beforeAll(ctx) {
  log(ctx, `beforeAll test=${ctx.test_id} eval_dir=${path.basename(ctx.eval_dir)} run=${ctx.eval_run_id ? 'set' : 'unset'}`);
  return { provider_context: { from: 'beforeAll' }, metadata: { stage: 'all' }, output: 'beforeAll done' };
}

export function beforeEach(ctx) {
  const meta = ctx.case_metadata ? Object.keys(ctx.case_metadata).sort().join(',') : 'none';
  log(ctx, `beforeEach test=${ctx.test_id} input=${JSON.stringify(ctx.case_input)} ctx=${ctx.provider_context?.from ?? 'none'} meta=${meta}`);
  writeFileSync(path.join(ctx.workspace_path, 'current.txt'), ctx.test_id);
  return { provider_context: { each: ctx.test_id } };
}

export function afterAll(ctx) {
  log(ctx, `afterAll test=${ctx.test_id}`);
}
