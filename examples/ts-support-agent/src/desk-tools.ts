// The agent's Tools: whatever the MCP server at EVAL_MCP_URL lists (in production the order
// desk's own server), offered to the model as function tools, behind an approval gate.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";

/** Tools the agent never calls on a model's say-so: a human approves them elsewhere. */
export const NEEDS_APPROVAL: ReadonlySet<string> = new Set(["delete_account"]);

export class DeskTools {
  private constructor(
    private readonly client: Client,
    readonly offered: ChatCompletionFunctionTool[],
  ) {}

  /** Connects to the MCP server (streamable HTTP, bearer token) and lists its Tools. */
  static async connect(url: string, token: string): Promise<DeskTools> {
    const client = new Client({ name: "acme-support-agent", version: "0.1.0" });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const offered: ChatCompletionFunctionTool[] = tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description ?? "",
        parameters: tool.inputSchema as Record<string, unknown>,
      },
    }));
    return new DeskTools(client, offered);
  }

  /** The Tool message the model reads back: the Tool's own text, or {"error": ...}. */
  async call(name: string, rawArguments: string): Promise<string> {
    let args: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(rawArguments === "" ? "{}" : rawArguments);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return errorText(`${name}'s arguments are not a JSON object`);
      }
      args = parsed as Record<string, unknown>;
    } catch {
      return errorText(`${name}'s arguments are not JSON: ${rawArguments.slice(0, 200)}`);
    }
    if (NEEDS_APPROVAL.has(name)) {
      return errorText(`${name} needs a human's approval: it was not called`);
    }
    try {
      const result = await this.client.callTool({ name, arguments: args });
      const text = toText(result.content);
      return result.isError === true ? errorText(text) : text;
    } catch (error) {
      return errorText(`${name} could not be called: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function errorText(message: string): string {
  return JSON.stringify({ error: message });
}

function toText(content: unknown): string {
  if (!Array.isArray(content)) return JSON.stringify(content ?? null);
  return content
    .map((part: { type?: string; text?: string }) =>
      part.type === "text" && typeof part.text === "string" ? part.text : JSON.stringify(part),
    )
    .join("\n");
}
