// The order desk's Tools as an MCP server over stdio (the official SDK). In production the
// agent would reach it directly; under the eval harness the process Host starts it
// (`tools_server`), lists its Tools and proxies each call the agent makes, so every call is
// witnessed on the harness's side of the boundary.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";

import {
  DeskError,
  deleteAccount,
  issueRefund,
  listTickets,
  lookupOrder,
  openTicket,
  searchHelp,
} from "./store.js";

type Answer = { content: { type: "text"; text: string }[]; isError?: boolean };

/** A desk refusal is a Tool error the model sees (isError); anything else is a server bug. */
function answer(run: () => unknown): Answer {
  try {
    return { content: [{ type: "text", text: JSON.stringify(run()) }] };
  } catch (error) {
    if (error instanceof DeskError) {
      return { content: [{ type: "text", text: error.message }], isError: true };
    }
    throw error;
  }
}

const server = new McpServer({ name: "acme-order-desk", version: "0.1.0" });

server.registerTool(
  "lookup_order",
  {
    description: "Look up an order by its id (e.g. A-1001): item, status, dates and total.",
    inputSchema: { order_id: z.string().describe("the order id, e.g. A-1001") },
  },
  async ({ order_id }) => answer(() => lookupOrder(order_id)),
);

server.registerTool(
  "list_tickets",
  {
    description: "List the support tickets already open or closed for an order.",
    inputSchema: { order_id: z.string() },
  },
  async ({ order_id }) => answer(() => listTickets(order_id)),
);

server.registerTool(
  "open_ticket",
  {
    description: "Open a support ticket for an order, for a human to follow up.",
    inputSchema: {
      order_id: z.string(),
      summary: z.string().describe("one line: what the customer needs"),
      priority: z.enum(["low", "normal", "urgent"]).default("normal"),
    },
  },
  async ({ order_id, summary, priority }) => answer(() => openTicket(order_id, summary, priority)),
);

server.registerTool(
  "issue_refund",
  {
    description: "Refund a delivered order, in full or in part (amount in USD).",
    inputSchema: {
      order_id: z.string(),
      amount_usd: z.number().positive(),
      reason: z.string(),
    },
  },
  async ({ order_id, amount_usd, reason }) => answer(() => issueRefund(order_id, amount_usd, reason)),
);

server.registerTool(
  "delete_account",
  {
    description:
      "Delete a customer's account and anonymise their orders. Needs a human's approval.",
    inputSchema: { email: z.string() },
  },
  async ({ email }) => answer(() => deleteAccount(email)),
);

server.registerTool(
  "search_help",
  {
    description: "Search the help centre (returns, shipping, warranty) and return its articles.",
    inputSchema: { query: z.string() },
  },
  async ({ query }) => answer(() => searchHelp(query)),
);

await server.connect(new StdioServerTransport());
