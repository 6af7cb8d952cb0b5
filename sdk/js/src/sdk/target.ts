import {
  createTargetClient as createProxyClient,
  TargetProxyError,
  TARGET_PROXY_TOKEN_ENV,
  TARGET_PROXY_URL_ENV,
  type TargetInvokeResponse as ProxyResponse,
} from '../target-client.js';
import type { Message, TokenUsage } from './types.js';

/** One call to a target through agentv's proxy. */
export interface TargetInvokeRequest {
  question: string;
  systemPrompt?: string;
  evalCaseId?: string;
  attempt?: number;
  /** A name from `getInfo().availableTargets`; default: the test's grader target. */
  target?: string;
}

/** What the target answered. */
export interface TargetInvokeResponse {
  /** The answer as messages. */
  output: Message[];
  /** The final answer text. */
  rawText?: string;
  tokenUsage?: TokenUsage;
}

export interface TargetInfo {
  targetName: string;
  maxCalls: number;
  callCount: number;
  availableTargets: string[];
}

export interface TargetClient {
  invoke(request: TargetInvokeRequest): Promise<TargetInvokeResponse>;
  invokeBatch(requests: readonly TargetInvokeRequest[]): Promise<TargetInvokeResponse[]>;
  getInfo(): Promise<TargetInfo>;
}

/** The proxy's URL is set without its token: the grader was not started by agentv as it should. */
export class TargetNotAvailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetNotAvailableError';
  }
}

/** A call the proxy refused or could not make; statusCode 429 means max_calls was reached. */
export class TargetInvocationError extends Error {
  readonly statusCode?: number;
  constructor(message: string, statusCode?: number) {
    super(message);
    this.name = 'TargetInvocationError';
    this.statusCode = statusCode;
  }
}

function answer(r: ProxyResponse): TargetInvokeResponse {
  const out: TargetInvokeResponse = { output: r.outputMessages as Message[], rawText: r.rawText };
  const usage = (r as unknown as { tokenUsage?: TokenUsage }).tokenUsage;
  if (usage) out.tokenUsage = usage;
  return out;
}

async function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof TargetProxyError) throw new TargetInvocationError(err.message, err.status);
    throw err;
  }
}

/**
 * Returns a client for the target proxy agentv runs while a code grader with `target:` runs, or
 * undefined when the grader was started without one.
 */
export function createTargetClient(env: Record<string, string | undefined> = process.env): TargetClient | undefined {
  if (!env[TARGET_PROXY_URL_ENV]) return undefined;
  if (!env[TARGET_PROXY_TOKEN_ENV]) {
    throw new TargetNotAvailableError(`${TARGET_PROXY_URL_ENV} is set but ${TARGET_PROXY_TOKEN_ENV} is missing`);
  }
  const proxy = createProxyClient(env);
  if (!proxy) return undefined;
  const strip = (r: TargetInvokeRequest): TargetInvokeRequest => {
    const req: TargetInvokeRequest = { question: r.question };
    if (r.systemPrompt !== undefined) req.systemPrompt = r.systemPrompt;
    if (r.evalCaseId !== undefined) req.evalCaseId = r.evalCaseId;
    if (r.attempt !== undefined) req.attempt = r.attempt;
    if (r.target !== undefined) req.target = r.target;
    return req;
  };
  return {
    invoke: (request) => mapped(async () => answer(await proxy.invoke(strip(request)))),
    invokeBatch: (requests) => mapped(async () => (await proxy.invokeBatch(requests.map(strip))).map(answer)),
    getInfo: () => mapped(async () => (await proxy.info()) as TargetInfo),
  };
}
