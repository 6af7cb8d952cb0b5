import { kindOf } from '../payload.js';
import { errorMessage, type ProcessIO } from '../process-io.js';
import { serve } from '../worker.js';
import { parseGraderInput } from './input.js';
import type {
  AssertionEntry,
  AssertionHandler,
  CodeGraderHandler,
  CodeGraderResult,
  PromptTemplateHandler,
} from './types.js';

/** The JSON object agentv reads from a grader's stdout. */
interface WireResult {
  score: number;
  assertions: AssertionEntry[];
  reasoning?: string;
  details?: Record<string, unknown>;
}

function clamp(score: number): number {
  return Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
}

function assertionList(v: unknown, who: string): AssertionEntry[] {
  if (v == null) return [];
  if (!Array.isArray(v)) throw new TypeError(`${who} result: assertions must be an array of {text, passed}, got ${kindOf(v)}`);
  return v.map((a, i) => {
    if (typeof a !== 'object' || a === null || typeof a.text !== 'string' || typeof a.passed !== 'boolean') {
      throw new TypeError(`${who} result: assertions[${i}] must be {text: string, passed: boolean, evidence?: string}, got ${kindOf(a)}`);
    }
    const e: AssertionEntry = { text: a.text, passed: a.passed };
    if (a.evidence != null) {
      if (typeof a.evidence !== 'string') throw new TypeError(`${who} result: assertions[${i}].evidence must be a string, got ${kindOf(a.evidence)}`);
      e.evidence = a.evidence;
    }
    return e;
  });
}

function resultObject(r: unknown, who: string, example: string): Record<string, unknown> {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) {
    throw new TypeError(`${who} must return an object like ${example}, got ${r === undefined ? 'undefined' : kindOf(r)}`);
  }
  return r as Record<string, unknown>;
}

/** The fields every verdict shares: assertions, reasoning and details, checked. */
function common(o: Record<string, unknown>, score: number, who: string): WireResult {
  const out: WireResult = { score, assertions: assertionList(o.assertions, who) };
  if (o.reasoning != null) {
    if (typeof o.reasoning !== 'string') throw new TypeError(`${who} result: reasoning must be a string, got ${kindOf(o.reasoning)}`);
    out.reasoning = o.reasoning;
  }
  if (o.details != null) {
    if (typeof o.details !== 'object' || Array.isArray(o.details)) {
      throw new TypeError(`${who} result: details must be an object, got ${kindOf(o.details)}`);
    }
    out.details = o.details as Record<string, unknown>;
  }
  return out;
}

/** Checks a code grader's result: a number score, clamped to [0, 1]. */
export function gradeResult(r: unknown): WireResult {
  const o = resultObject(r, 'code grader', '{ score: 1, assertions: [] }');
  if (typeof o.score !== 'number' || Number.isNaN(o.score)) {
    throw new TypeError(`code grader result: score must be a number from 0 to 1, got ${o.score === undefined ? 'undefined' : Number.isNaN(o.score) ? 'NaN' : kindOf(o.score)}`);
  }
  return common(o, clamp(o.score), 'code grader');
}

/** Checks an assertion's result: the score is `score` (clamped), else 1 or 0 from `pass`, else 0. */
export function assertionResult(r: unknown): WireResult {
  const o = resultObject(r, 'assertion', '{ pass: true } or { score: 0.5 }');
  let score = 0;
  if (o.score != null) {
    if (typeof o.score !== 'number') throw new TypeError(`assertion result: score must be a number from 0 to 1, got ${kindOf(o.score)}`);
    score = clamp(o.score);
  } else if (o.pass != null) {
    if (typeof o.pass !== 'boolean') throw new TypeError(`assertion result: pass must be true or false, got ${kindOf(o.pass)}`);
    score = o.pass ? 1 : 0;
  }
  return common(o, score, 'assertion');
}

async function run(io: ProcessIO, name: string, handler: unknown, print: (input: never) => Promise<string>): Promise<void> {
  try {
    if (typeof handler !== 'function') throw new TypeError(`${name} needs a function, got ${kindOf(handler)}`);
    const input = parseGraderInput(io.readStdin());
    io.writeStdout((await print(input as never)) + '\n');
  } catch (err) {
    io.fail(errorMessage(err));
  }
}

export function runCodeGrader(handler: CodeGraderHandler, io: ProcessIO): Promise<void> {
  return run(io, 'defineCodeGrader', handler, async (input) => JSON.stringify(gradeResult(await handler(input))));
}

export function runAssertion(handler: AssertionHandler, io: ProcessIO): Promise<void> {
  return run(io, 'defineAssertion', handler, async (input) => JSON.stringify(assertionResult(await handler(input))));
}

export function runPromptTemplate(handler: PromptTemplateHandler, io: ProcessIO): Promise<void> {
  return run(io, 'definePromptTemplate', handler, async (input) => {
    const prompt: unknown = await handler(input);
    if (typeof prompt !== 'string') {
      throw new TypeError(`prompt template must return a string, got ${prompt === undefined ? 'undefined' : kindOf(prompt)}`);
    }
    return prompt;
  });
}

/**
 * Runs a code grader: reads the context from stdin, calls handler (awaiting it when async) and
 * prints `{score, assertions, reasoning?, details?}` with the score clamped to [0, 1]. On error the
 * message goes to stderr and the process exits with code 1.
 *
 * ```ts
 * import { defineCodeGrader } from '@agentv/sdk';
 * export default defineCodeGrader(({ output }) => ({ score: output?.includes('Paris') ? 1 : 0 }));
 * ```
 */
export function defineCodeGrader(handler: CodeGraderHandler): Promise<void> {
  return serve('defineCodeGrader', (io) => runCodeGrader(handler, io));
}

/**
 * Runs a custom assertion (a file in `.agentv/assertions/`, used as `type: <file name>`): the
 * handler returns `{pass}` or `{score}`, with optional `assertions`, `reasoning` and `details`.
 *
 * ```ts
 * import { defineAssertion } from '@agentv/sdk';
 * export default defineAssertion(({ output }) => ({ pass: /hello/i.test(output ?? '') }));
 * ```
 */
export function defineAssertion(handler: AssertionHandler): Promise<void> {
  return serve('defineAssertion', (io) => runAssertion(handler, io));
}

/**
 * Runs a prompt template for an llm-grader: the handler returns the grader's prompt.
 *
 * ```ts
 * import { definePromptTemplate } from '@agentv/sdk';
 * export default definePromptTemplate((ctx) => `Criteria: ${ctx.criteria}\nAnswer: ${ctx.output ?? ''}`);
 * ```
 */
export function definePromptTemplate(handler: PromptTemplateHandler): Promise<void> {
  return serve('definePromptTemplate', (io) => runPromptTemplate(handler, io));
}

export type { CodeGraderResult };
