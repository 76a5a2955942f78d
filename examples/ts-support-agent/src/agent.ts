// Acme Outdoor's support agent, as a command: `node dist/agent.js [--stream]` (--stream: the
// model's replies streamed). One conversation as JSON on stdin (the eval harness's
// eval-process/1 protocol), one answer as JSON on stdout. The model is whatever
// OPENAI_BASE_URL serves (model EVAL_MODEL); the Tools are whatever MCP server EVAL_MCP_URL
// names. Past reading the protocol's JSON, nothing here knows it is being evaluated: in
// production the same variables point at the vendor and the order desk's own MCP server.
import { readFile } from "node:fs/promises";

import OpenAI from "openai";

import { DeskTools } from "./desk-tools.js";
import { type Outcome, type Turn, runTurn } from "./loop.js";

const PROTOCOL = "eval-process/1";
const INSTRUCTIONS = new URL("../prompts/support.md", import.meta.url);

class UsageError extends Error {}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new UsageError(`${name} is not set`);
  return value;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The conversation the request carries: its messages, ending with the user's input. */
function conversationOf(text: string): Turn[] {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    throw new UsageError("stdin is not one JSON document");
  }
  const { protocol, messages, input } = (request ?? {}) as Record<string, unknown>;
  if (protocol !== PROTOCOL) {
    throw new UsageError(`protocol is not ${PROTOCOL}: ${String(protocol)}`);
  }
  if (!Array.isArray(messages)) throw new UsageError("messages is not a list");
  const turns = messages.map((m: unknown, i: number): Turn => {
    const { role, content } = (typeof m === "object" && m !== null ? m : {}) as Turn;
    if ((role !== "user" && role !== "assistant") || typeof content !== "string") {
      throw new UsageError(`messages[${i}] is not a user or assistant message with text`);
    }
    return { role, content };
  });
  const last = turns.at(-1);
  if (last?.role === "user") return turns;
  if (typeof input !== "string") throw new UsageError("input is not text");
  return [...turns, { role: "user", content: input }];
}

async function main(): Promise<Outcome> {
  const conversation = conversationOf(await readStdin());
  const openai = new OpenAI({
    baseURL: required("OPENAI_BASE_URL"),
    apiKey: required("OPENAI_API_KEY"),
    maxRetries: 0, // one request per step: the harness (or the vendor's gateway) retries
  });
  const instructions = await readFile(INSTRUCTIONS, "utf8");
  // The Tool server's own credential: the model key is never sent to it (eval-process/1 gives
  // it as EVAL_MCP_TOKEN; in production, whatever the order desk's server wants).
  const tools = await DeskTools.connect(required("EVAL_MCP_URL"), required("EVAL_MCP_TOKEN"));
  try {
    const stream = process.argv.includes("--stream");
    return await runTurn(openai, required("EVAL_MODEL"), instructions, conversation, tools, stream);
  } catch (error) {
    if (error instanceof OpenAI.APIError) {
      const reason = `the model refused the request: ${error.message}`;
      return { answer: "", status: "failed", reason };
    }
    throw error;
  } finally {
    await tools.close();
  }
}

try {
  const outcome = await main();
  process.stdout.write(`${JSON.stringify(outcome)}\n`, () => process.exit(0));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`support agent: ${message.split("\n")[0]}\n`, () =>
    process.exit(error instanceof UsageError ? 2 : 1),
  );
}
