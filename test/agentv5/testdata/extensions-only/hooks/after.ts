// A TypeScript hook: runs after each test's answer was graded, with the context its
// beforeEach returned.
import { appendFileSync } from 'node:fs';
import path from 'node:path';

type Context = {
  workspace_path: string;
  test_id: string;
  hook_name: string;
  provider_context?: { from?: string; each?: string };
};

export function afterEach(ctx: Context): { output: string } {
  const seen: string = `${ctx.provider_context?.from ?? 'none'}/${ctx.provider_context?.each ?? 'none'}`;
  appendFileSync(path.join(ctx.workspace_path, 'log.txt'), `${ctx.hook_name} test=${ctx.test_id} ctx=${seen}\n`);
  return { output: 'afterEach done' };
}
