import type { Metadata } from "next";
import { openApiDocument } from "@/lib/openapi/document";

export const metadata: Metadata = { title: "API reference" };

type Schema = {
  type?: string | string[];
  description?: string;
  anyOf?: Schema[];
  enum?: string[];
  items?: Schema;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
};

/** A short human reading of a JSON Schema node: "array of string (1-100), at most 1000 items". */
function describeType(schema: Schema): string {
  if (schema.anyOf) {
    const parts = schema.anyOf.filter((s) => s.type !== "null").map(describeType);
    const nullable = schema.anyOf.some((s) => s.type === "null");
    return parts.join(" or ") + (nullable ? " or null" : "");
  }
  if (schema.$ref) return schema.$ref.replace("#/components/schemas/", "");
  if (schema.enum) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if ("const" in schema) return JSON.stringify((schema as { const: unknown }).const);
  const bits: string[] = [];
  let base = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any");
  if (schema.type === "array" && schema.items) base = `array of ${describeType(schema.items)}`;
  if (schema.format) bits.push(schema.format);
  if (schema.minimum !== undefined || schema.maximum !== undefined) bits.push(`${schema.minimum ?? "…"} to ${schema.maximum ?? "…"}`);
  if (schema.minLength !== undefined || schema.maxLength !== undefined) bits.push(`${schema.minLength ?? 0}–${schema.maxLength ?? "…"} characters`);
  if (schema.maxItems !== undefined) bits.push(`at most ${schema.maxItems} items`);
  return bits.length ? `${base} (${bits.join(", ")})` : base;
}

function FieldTable({ schema, caption }: { schema: Schema; caption: string }) {
  const required = new Set(schema.required ?? []);
  return (
    <div className="overflow-x-auto">
      <table className="w-full border-collapse text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr className="border-b border-slate-300">
            <th scope="col" className="py-2 pr-4 font-semibold">Field</th>
            <th scope="col" className="py-2 pr-4 font-semibold">Type</th>
            <th scope="col" className="py-2 font-semibold">Meaning</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(schema.properties ?? {}).map(([name, prop]) => (
            <tr key={name} className="border-b border-slate-200 align-top">
              <td className="py-2 pr-4 font-mono text-xs">
                {name}
                {required.has(name) ? "" : <span className="text-slate-600"> ?</span>}
              </td>
              <td className="py-2 pr-4 text-xs">{describeType(prop)}</td>
              <td className="py-2 text-xs">{prop.description ?? prop.anyOf?.find((s) => s.description)?.description ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const CURL = `SHOP=YOUR_SHOP_CODE
PASSWORD='your-shop-password'
NONCE="$(date +%s%N)-$(openssl rand -hex 8)"
SIGNATURE=$(printf '%s%s' "$NONCE" "$PASSWORD" | sha256sum | cut -d' ' -f1)
curl -s http://localhost:3000/api/chargeback \\
  -H 'Content-Type: application/json' \\
  -H "X-Shop-Code: $SHOP" -H "X-Nonce: $NONCE" -H "X-Signature: $SIGNATURE" \\
  -d '{"file_date_from":"2026-01-01","per_page":50,"sortKey":"FILE_DATE","sortOrder":"desc"}'`;

const NODE = `import crypto from "node:crypto";

async function searchChargebacks(filters) {
  const nonce = crypto.randomUUID();               // new for every request
  const signature = crypto.createHash("sha256")
    .update(nonce + process.env.SHOP_PASSWORD, "utf8").digest("hex");
  const res = await fetch("http://localhost:3000/api/chargeback", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Shop-Code": process.env.SHOP_CODE,
               "X-Nonce": nonce, "X-Signature": signature },
    body: JSON.stringify(filters),
  });
  if (!res.ok) throw new Error(JSON.stringify(await res.json()));   // problem+json
  return res.json();   // { content, totalPages, totalElements }
}`;

export default function ApiDocsPage() {
  const doc = openApiDocument() as {
    info: { title: string; description: string };
    paths: Record<string, { post: { summary: string; description: string; responses: Record<string, { description: string }> } }>;
    components: { schemas: Record<string, Schema> };
  };
  const schemas = doc.components.schemas;
  const summaryParts = (group: string, amount: string): [string, Schema][] => [
    ["Each group of groups", schemas[group]],
    ["key of a group: one member per dimension of group_by", schemas[group].properties?.key ?? {}],
    [`Each ${amount} of amounts`, schemas[amount]],
  ];
  const endpoints: { path: string; request: string; extension?: boolean; parts: [string, Schema][] }[] = [
    { path: "/api/chargeback", request: "ChargebackSearch", parts: [["Each record of content", schemas.Chargeback]] },
    { path: "/api/pre_arbitration", request: "PreArbitrationSearch", parts: [["Each record of content", schemas.PreArbitration]] },
    { path: "/api/chargeback/summary", request: "ChargebackSummaryRequest", extension: true, parts: summaryParts("ChargebackSummaryGroup", "ChargebackSummaryAmount") },
    {
      path: "/api/pre_arbitration/summary",
      request: "PreArbitrationSummaryRequest",
      extension: true,
      parts: summaryParts("PreArbitrationSummaryGroup", "PreArbitrationSummaryAmount"),
    },
  ];
  return (
    <main className="mx-auto max-w-5xl space-y-10 px-4 py-8">
      <header className="space-y-3">
        <h1 className="text-2xl font-semibold">{doc.info.title}</h1>
        {doc.info.description.split("\n\n").map((para) => (
          <p key={para} className="text-sm leading-6 text-slate-700">{para}</p>
        ))}
        <p className="text-sm">
          Machine-readable: <a className="text-blue-700 underline" href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).
        </p>
      </header>

      <section aria-labelledby="auth" className="space-y-3">
        <h2 id="auth" className="text-xl font-semibold">Signing a request</h2>
        <p className="text-sm">With a shell:</p>
        <pre className="overflow-x-auto rounded bg-slate-900 p-4 text-xs text-slate-100"><code>{CURL}</code></pre>
        <p className="text-sm">With Node.js 20:</p>
        <pre className="overflow-x-auto rounded bg-slate-900 p-4 text-xs text-slate-100"><code>{NODE}</code></pre>
      </section>

      {endpoints.map(({ path, request, extension, parts }) => {
        const op = doc.paths[path].post;
        return (
          <section key={path} aria-labelledby={`ep-${request}`} className="space-y-4">
            <h2 id={`ep-${request}`} className="text-xl font-semibold">
              <span className="mr-2 rounded bg-emerald-700 px-2 py-0.5 font-mono text-sm text-white">POST</span>
              <span className="font-mono">{path}</span>
              {extension ? <span className="ml-2 rounded border border-slate-400 px-2 py-0.5 text-xs font-normal text-slate-700">Extension</span> : null}
            </h2>
            <p className="text-sm">{op.summary}. {op.description}</p>
            <h3 className="font-semibold">Request body</h3>
            <FieldTable schema={schemas[request]} caption={`${path} request fields`} />
            {parts.map(([heading, schema]) => (
              <div key={heading} className="space-y-2">
                <h3 className="font-semibold">{heading}</h3>
                <FieldTable schema={schema} caption={`${path}: ${heading}`} />
              </div>
            ))}
          </section>
        );
      })}

      <section aria-labelledby="errors" className="space-y-3">
        <h2 id="errors" className="text-xl font-semibold">Responses and errors</h2>
        <p className="text-sm">
          Errors are RFC 9457 problem details (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>,{" "}
          <code>status</code>, <code>detail</code>, and on 400 an <code>errors</code> list of <code>{"{field, message}"}</code>.
        </p>
        <dl className="divide-y divide-slate-200 text-sm">
          {Object.entries(doc.paths["/api/chargeback"].post.responses).map(([status, response]) => (
            <div key={status} id={`error-${status}`} className="flex gap-4 py-2">
              <dt className="w-12 shrink-0 font-mono font-semibold">{status}</dt>
              <dd>{response.description}</dd>
            </div>
          ))}
        </dl>
      </section>
    </main>
  );
}
