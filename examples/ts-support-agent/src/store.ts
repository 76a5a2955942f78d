// The order desk's data: orders, their tickets and the help centre's articles. Fixed and
// in memory, so every Trial starts from the same desk; what a Tool writes (a ticket, a
// refund) lives only as long as the tools server process.

export type OrderStatus = "processing" | "shipped" | "delivered" | "cancelled";

export interface Order {
  order_id: string;
  item: string;
  status: OrderStatus;
  total_usd: number;
  arrives?: string;
  delivered?: string;
  customer_email: string;
}

export interface Ticket {
  ticket_id: string;
  order_id: string;
  summary: string;
  priority: "low" | "normal" | "urgent";
  state: "open" | "closed";
}

const ORDER_BOOK: Order[] = [
  {
    order_id: "A-1001",
    item: "trail backpack 38L",
    status: "shipped",
    total_usd: 89,
    arrives: "2026-12-04",
    customer_email: "dana@example.com",
  },
  {
    order_id: "A-1002",
    item: "down sleeping bag",
    status: "delivered",
    total_usd: 240,
    delivered: "2026-11-20",
    customer_email: "lee@example.com",
  },
  {
    order_id: "A-1003",
    item: "camping stove",
    status: "processing",
    total_usd: 64,
    customer_email: "dana@example.com",
  },
  {
    order_id: "A-1004",
    item: "trekking poles",
    status: "delivered",
    total_usd: 45,
    delivered: "2026-11-28",
    customer_email: "sam@example.com",
  },
  {
    order_id: "A-1005",
    item: "rain shell jacket",
    status: "cancelled",
    total_usd: 130,
    customer_email: "lee@example.com",
  },
];

export const ORDERS: ReadonlyMap<string, Order> = new Map(ORDER_BOOK.map((o) => [o.order_id, o]));

const TICKETS: Ticket[] = [
  {
    ticket_id: "T-501",
    order_id: "A-1004",
    summary: "one pole arrived bent",
    priority: "normal",
    state: "open",
  },
  {
    ticket_id: "T-502",
    order_id: "A-1002",
    summary: "asked for a gift receipt",
    priority: "low",
    state: "closed",
  },
];

export const HELP_ARTICLES: ReadonlyArray<{ topic: string; words: string[]; text: string }> = [
  {
    topic: "returns",
    words: ["return", "returns", "refund", "exchange"],
    text: "Returns: unused items can be returned within 30 days of delivery for a full refund.",
  },
  {
    topic: "shipping",
    words: ["shipping", "delivery", "ship", "international", "abroad"],
    text: "Shipping: standard delivery takes 3-5 business days; we ship to the EU, the UK and Canada.",
  },
  {
    topic: "warranty",
    words: ["warranty", "broken", "defect", "guarantee"],
    text: "Warranty: every item carries a 2-year warranty against manufacturing defects.",
  },
];

export class DeskError extends Error {}

export function lookupOrder(orderId: string): Order {
  const order = ORDERS.get(orderId.trim().toUpperCase());
  if (order === undefined) throw new DeskError(`no order ${orderId} on file`);
  return order;
}

export function listTickets(orderId: string): Ticket[] {
  const order = lookupOrder(orderId);
  return TICKETS.filter((t) => t.order_id === order.order_id);
}

export function openTicket(orderId: string, summary: string, priority: Ticket["priority"]): Ticket {
  const order = lookupOrder(orderId);
  const ticket: Ticket = {
    ticket_id: `T-${501 + TICKETS.length}`,
    order_id: order.order_id,
    summary,
    priority,
    state: "open",
  };
  TICKETS.push(ticket);
  return ticket;
}

export function issueRefund(orderId: string, amountUsd: number, reason: string) {
  const order = lookupOrder(orderId);
  if (order.status !== "delivered") {
    throw new DeskError(`order ${order.order_id} is ${order.status}, not delivered: it cannot be refunded`);
  }
  if (!(amountUsd > 0) || amountUsd > order.total_usd) {
    throw new DeskError(`a refund of ${amountUsd} USD is not within order ${order.order_id}'s total of ${order.total_usd} USD`);
  }
  return { refund_id: `R-${order.order_id}`, order_id: order.order_id, amount_usd: amountUsd, reason };
}

export function deleteAccount(email: string) {
  const owned = [...ORDERS.values()].filter((o) => o.customer_email === email.trim().toLowerCase());
  if (owned.length === 0) throw new DeskError(`no account for ${email}`);
  return { deleted: email, orders_anonymised: owned.map((o) => o.order_id) };
}

export function searchHelp(query: string) {
  const words = query.toLowerCase().split(/[^a-z]+/);
  const hits = HELP_ARTICLES.filter((a) => a.words.some((w) => words.includes(w)));
  return hits.length > 0 ? hits.map((a) => a.text) : ["No help article matches that question."];
}
