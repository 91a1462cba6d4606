import { KINDS, RECORD_KINDS, type RecordKind } from "@/lib/domain/kinds";
import type { AlertFacts, DigestFacts, MessageFacts, NewOfKind } from "./facts";
import { type Html, html } from "./html";

/**
 * A message's facts written out (docs/mail.md, "What a message looks like"): the subject, a plain
 * text part and an HTML part with the same facts. The HTML is for mail clients: tables and inline
 * styles, no scripts, no remote images, one column that narrows on a phone. Dates are YYYY-MM-DD,
 * currencies ISO codes, amounts as the API writes them. No comment field, no card data.
 */

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

const KIND_WORDS: Record<RecordKind, [one: string, many: string]> = {
  chargeback: ["chargeback", "chargebacks"],
  pre_arbitration: ["pre-arbitration case", "pre-arbitration cases"],
};

const count = (n: number, [one, many]: readonly [string, string]) => `${n} ${n === 1 ? one : many}`;
const disputes = (n: number) => count(n, ["dispute", "disputes"]);
const records = (n: number) => count(n, ["record", "records"]);

export const digestSubject = (facts: Pick<DigestFacts, "new_count" | "due_count">) => `Disputes: ${facts.new_count} new, ${facts.due_count} due within 7 days`;

export function alertSubject(facts: AlertFacts): string {
  return `New ${KIND_WORDS[facts.record_kind][1]}: ${facts.count} in the file of ${facts.file_date}`;
}

function amountsText(kind: RecordKind, of: NewOfKind): string[] {
  return of.amounts.map((a) =>
    kind === "chargeback" ? `${a.currency} ${a.chb_amount} (reversals: ${a.currency} ${a.reversal_amount})` : `${a.currency} ${a.amount}`,
  );
}

const STATUS_WORDS = { overdue: "overdue", due: "due" } as const;

function digestText(facts: DigestFacts, link: (path: string) => string, unsubscribe: string): string {
  const lines: string[] = [];
  lines.push(`Your ${facts.frequency} dispute digest for ${facts.date} (${facts.zone}).`, "");
  lines.push(`NEW: ${records(facts.new_count)} since your previous digest`);
  for (const kind of RECORD_KINDS) {
    const of = facts.new[kind];
    if (of.count === 0) continue;
    lines.push(`  ${KINDS[kind].title}: ${of.count}`);
    for (const s of of.shops) lines.push(`    shop ${s.shop_code}: ${s.count}`);
    for (const a of amountsText(kind, of)) lines.push(`    ${a}`);
  }
  lines.push("");
  lines.push(`DUE: ${disputes(facts.due_count)} need an answer within 7 days`);
  lines.push(`  overdue: ${facts.due.overdue}`, `  due today to 2 days ahead: ${facts.due.soon}`, `  due in 3 to 7 days: ${facts.due.week}`);
  if (facts.items.length > 0) {
    lines.push("", facts.due_count > facts.items.length ? `The first ${facts.items.length}, nearest answer-by date first:` : "Nearest answer-by date first:");
    for (const item of facts.items) {
      lines.push(`  ${item.answer_by} ${STATUS_WORDS[item.status]}  ${KINDS[item.kind].singular}  ARN ${item.acq_ref_nr}  shop ${item.shop_code}  ${item.currency} ${item.amount}`);
      lines.push(`    ${link(item.link)}`);
    }
  }
  lines.push("", `Worklist: ${link(facts.worklist_link)}`);
  lines.push("", `You get this because your digest is ${facts.frequency}. Stop it: ${unsubscribe}`);
  return lines.join("\n") + "\n";
}

function alertText(facts: AlertFacts, link: (path: string) => string, unsubscribe: string): string {
  const lines = [`A ${KINDS[facts.record_kind].singular.toLowerCase()} file of ${facts.file_date} brought ${count(facts.count, KIND_WORDS[facts.record_kind])} in your shops:`, ""];
  for (const s of facts.shops) lines.push(`  shop ${s.shop_code}: ${s.count}`);
  lines.push("", `See them: ${link(facts.link)}`, "", `You get this because new-dispute alerts are on. Stop them: ${unsubscribe}`);
  return lines.join("\n") + "\n";
}

// Mail clients drop <style> blocks and stylesheets: every style is inline.
const FONT = "font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;";
const CELL = `${FONT}font-size:14px;line-height:20px;color:#1f2937;padding:6px 8px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top;`;
const HEAD = `${CELL}font-weight:600;color:#4b5563;background:#f9fafb;`;
const NUM = `${CELL}text-align:right;white-space:nowrap;`;
const LINK = "color:#1d4ed8;text-decoration:underline;";

function page(title: string, body: Html, unsubscribe: string, reason: string): string {
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f3f4f6;"><tr><td align="center" style="padding:16px 8px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border:1px solid #e5e7eb;border-radius:6px;">
<tr><td style="${FONT}padding:16px;font-size:14px;line-height:20px;color:#1f2937;">
<h1 style="${FONT}font-size:18px;line-height:24px;margin:0 0 12px;color:#111827;">${title}</h1>
${body}
<p style="${FONT}font-size:12px;line-height:18px;color:#6b7280;margin:24px 0 0;">${reason} <a href="${unsubscribe}" style="${LINK}">Unsubscribe</a></p>
</td></tr></table>
</td></tr></table>
</body></html>
`.text;
}

function table(head: readonly string[], rows: readonly Html[], numeric: readonly boolean[]): Html {
  return html`<table role="table" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:8px 0 16px;">
<thead><tr>${head.map((h, i) => html`<th scope="col" style="${numeric[i] ? `${HEAD}text-align:right;` : HEAD}">${h}</th>`)}</tr></thead>
<tbody>${rows}</tbody></table>`;
}

function digestHtml(facts: DigestFacts, link: (path: string) => string, unsubscribe: string): string {
  const fresh = RECORD_KINDS.filter((kind) => facts.new[kind].count > 0).map((kind) => {
    const of = facts.new[kind];
    return html`<h3 style="${FONT}font-size:14px;margin:12px 0 4px;">${KINDS[kind].title}: ${of.count}</h3>
${table(["Shop", "Records"], of.shops.map((s) => html`<tr><td style="${CELL}">${s.shop_code}</td><td style="${NUM}">${s.count}</td></tr>`), [false, true])}
${table(
  kind === "chargeback" ? ["Currency", "Amount", "Reversals"] : ["Currency", "Amount"],
  of.amounts.map((a) =>
    kind === "chargeback"
      ? html`<tr><td style="${CELL}">${a.currency}</td><td style="${NUM}">${a.chb_amount}</td><td style="${NUM}">${a.reversal_amount}</td></tr>`
      : html`<tr><td style="${CELL}">${a.currency}</td><td style="${NUM}">${a.amount}</td></tr>`,
  ),
  kind === "chargeback" ? [false, true, true] : [false, true],
)}`;
  });
  const items = facts.items.map(
    (item) => html`<tr><td style="${CELL}white-space:nowrap;">${item.answer_by}<br><span style="color:${item.status === "overdue" ? "#b91c1c" : "#4b5563"};font-size:12px;">${STATUS_WORDS[item.status]}</span></td>
<td style="${CELL}"><a href="${link(item.link)}" style="${LINK}">${item.acq_ref_nr}</a><br><span style="font-size:12px;color:#4b5563;">${KINDS[item.kind].singular}, shop ${item.shop_code}</span></td>
<td style="${NUM}">${item.currency} ${item.amount}</td></tr>`,
  );
  const body = html`<p style="margin:0 0 12px;">Your ${facts.frequency} dispute digest for ${facts.date} (${facts.zone}).</p>
<h2 style="${FONT}font-size:16px;margin:16px 0 4px;">New: ${records(facts.new_count)} since your previous digest</h2>
${fresh}
<h2 style="${FONT}font-size:16px;margin:16px 0 4px;">Due: ${disputes(facts.due_count)} need an answer within 7 days</h2>
${table(
  ["Overdue", "Today to 2 days", "3 to 7 days"],
  [html`<tr><td style="${NUM}text-align:left;">${facts.due.overdue}</td><td style="${NUM}text-align:left;">${facts.due.soon}</td><td style="${NUM}text-align:left;">${facts.due.week}</td></tr>`],
  [false, false, false],
)}
${
  facts.items.length > 0
    ? html`<p style="margin:0;">${facts.due_count > facts.items.length ? `The first ${facts.items.length}, nearest answer-by date first:` : "Nearest answer-by date first:"}</p>
${table(["Answer by", "Acquirer reference", "Amount"], items, [false, false, true])}`
    : ""
}
<p style="margin:12px 0 0;"><a href="${link(facts.worklist_link)}" style="${LINK}">Open the worklist</a></p>`;
  return page(digestSubject(facts), body, unsubscribe, `You get this because your digest is ${facts.frequency}.`);
}

function alertHtml(facts: AlertFacts, link: (path: string) => string, unsubscribe: string): string {
  const body = html`<p style="margin:0 0 12px;">A ${KINDS[facts.record_kind].singular.toLowerCase()} file of ${facts.file_date} brought ${count(facts.count, KIND_WORDS[facts.record_kind])} in your shops:</p>
${table(["Shop", "Records"], facts.shops.map((s) => html`<tr><td style="${CELL}">${s.shop_code}</td><td style="${NUM}">${s.count}</td></tr>`), [false, true])}
<p style="margin:12px 0 0;"><a href="${link(facts.link)}" style="${LINK}">See them in the dashboard</a></p>`;
  return page(alertSubject(facts), body, unsubscribe, "You get this because new-dispute alerts are on.");
}

/** `origin`: APP_URL, put in front of every dashboard path; `unsubscribe`: the message's one-click link. */
export function renderMessage(facts: MessageFacts, origin: string, unsubscribe: string): Rendered {
  const link = (path: string) => `${origin}${path}`;
  if (facts.kind === "digest") return { subject: digestSubject(facts), text: digestText(facts, link, unsubscribe), html: digestHtml(facts, link, unsubscribe) };
  return { subject: alertSubject(facts), text: alertText(facts, link, unsubscribe), html: alertHtml(facts, link, unsubscribe) };
}
