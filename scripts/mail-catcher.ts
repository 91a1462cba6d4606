/**
 * npm run mail:catch -- [--port <n>]: a mail server on loopback that accepts every message and
 * prints it (sender, recipient, subject, headers that matter, the plain-text part), for seeing the
 * demo's mail without sending any. Start it, then start the app with
 * SMTP_URL=smtp://127.0.0.1:<port> (default port 2525). Nothing leaves this machine.
 */
import { SMTPServer } from "smtp-server";
import { simpleParser } from "mailparser";

function portOf(argv: string[]): number {
  const i = argv.indexOf("--port");
  const raw = i >= 0 ? argv[i + 1] : process.env.MAIL_CATCHER_PORT ?? "2525";
  const port = Number(raw);
  if (!/^\d+$/.test(String(raw)) || port < 1 || port > 65535) {
    console.error(`mail-catcher: --port must be a port number, got ${JSON.stringify(raw)}`);
    process.exit(1);
  }
  return port;
}

const port = portOf(process.argv.slice(2));
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onData(stream, session, callback) {
    simpleParser(stream)
      .then((mail) => {
        const to = session.envelope.rcptTo.map((r) => r.address).join(", ");
        console.log(`\n=== ${new Date().toISOString()}  to ${to}`);
        console.log(`Subject: ${mail.subject ?? ""}`);
        const unsubscribe = mail.headerLines.find((h) => h.key === "list-unsubscribe")?.line ?? "List-Unsubscribe: (none)";
        console.log(unsubscribe);
        console.log(`Parts: text ${mail.text ? "yes" : "no"}, HTML ${mail.html ? "yes" : "no"}\n`);
        console.log(mail.text ?? "");
        callback();
      })
      .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err))));
  },
});
server.listen(port, "127.0.0.1", () => {
  console.log(`mail catcher listening on 127.0.0.1:${port}; start the app with SMTP_URL=smtp://127.0.0.1:${port}`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.close(() => process.exit(0)));
