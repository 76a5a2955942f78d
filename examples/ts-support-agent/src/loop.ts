// The agent's loop over Chat Completions: ask the model, run the Tools it calls, hand their
// answers back, until it answers in text or the iteration limit is reached.
import type OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";

import type { DeskTools } from "./desk-tools.js";

/** Model requests per conversation turn; a model that keeps calling Tools is stopped here. */
export const MAX_ITERATIONS = 8;

export interface Turn {
  role: "user" | "assistant";
  content: string;
}

export interface Outcome {
  answer: string;
  status: "completed" | "failed";
  reason?: string;
}

export async function runTurn(
  openai: OpenAI,
  model: string,
  instructions: string,
  conversation: Turn[],
  tools: DeskTools,
  stream = false,
): Promise<Outcome> {
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: instructions },
    ...conversation.map((turn) => ({ role: turn.role, content: turn.content })),
  ];
  for (let step = 0; step < MAX_ITERATIONS; step++) {
    const request = {
      model,
      messages,
      ...(tools.offered.length > 0 ? { tools: tools.offered } : {}),
    };
    // Streamed, the SDK's own helper gathers the deltas (text and Tool calls) into one reply.
    const reply = stream
      ? await openai.chat.completions.stream(request).finalChatCompletion()
      : await openai.chat.completions.create(request);
    const message = reply.choices[0]?.message;
    if (message === undefined) {
      return { answer: "", status: "failed", reason: "the model answered with no choice" };
    }
    const calls = (message.tool_calls ?? []).filter((call) => call.type === "function");
    if (calls.length === 0) {
      return { answer: message.content ?? "", status: "completed" };
    }
    messages.push({ role: "assistant", content: message.content ?? null, tool_calls: calls });
    for (const call of calls) {
      const content = await tools.call(call.function.name, call.function.arguments);
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  // eval-process/1 reads the reason in the harness's own words: `iteration_limit`.
  return { answer: "", status: "failed", reason: "iteration_limit" };
}
