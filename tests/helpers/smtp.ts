import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/**
 * For the mail tests (tests/integration/mail.test.ts): a real SMTP server on loopback
 * (smtp-server) that parses every message it is given with mailparser and records it. It can be
 * told to answer the next N messages (of one recipient, or of anyone) with a 4xx or 5xx code, and
 * to take a while before it answers. No STARTTLS and no authentication: plain SMTP on 127.0.0.1.
 */

export interface Caught {
  /** when the message's data had arrived (epoch ms) */
  at: number;
  from: string;
  /** the envelope's recipients */
  to: string[];
  raw: string;
  mail: ParsedMail;
  messageId: string;
  /** the answer given: 250, or the code of a refusal */
  answer: number;
}

interface Failure {
  code: number;
  left: number;
  to?: string;
}

export class MailCatcher {
  /** every message accepted (answered 250), in order of arrival */
  readonly received: Caught[] = [];
  /** every message whose data arrived, accepted or refused */
  readonly attempts: Caught[] = [];
  /** how long to wait before answering each message */
  delayMs = 0;
  private readonly failures: Failure[] = [];
  private server: SMTPServer | undefined;
  port = 0;

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("error", (err) => callback(err));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
          simpleParser(raw).then(
            (mail) => {
              const failure = this.failures.find((f) => f.left > 0 && (f.to === undefined || to.includes(f.to)));
              if (failure) failure.left--;
              const caught: Caught = { at: Date.now(), from, to, raw, mail, messageId: mail.messageId ?? "", answer: failure ? failure.code : 250 };
              this.attempts.push(caught);
              const answer = () => {
                if (failure) {
                  const err = new Error(failure.code >= 500 ? "mailbox unavailable (test)" : "try again later (test)") as Error & { responseCode: number };
                  err.responseCode = failure.code;
                  callback(err);
                } else {
                  this.received.push(caught);
                  callback();
                }
              };
              if (this.delayMs > 0) setTimeout(answer, this.delayMs);
              else answer();
            },
            (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
          );
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(0, "127.0.0.1", () => resolve());
    });
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  /** Answers the next `n` messages (to `to` only, when given) with `code` (e.g. 451 or 550). */
  failNext(n: number, code: number, to?: string): void {
    this.failures.push({ code, left: n, to: to?.toLowerCase() });
  }

  /** The accepted messages to one address. */
  to(address: string): Caught[] {
    const a = address.toLowerCase();
    return this.received.filter((c) => c.to.includes(a));
  }

  /** The attempts (accepted or not) to one address. */
  attemptsTo(address: string): Caught[] {
    const a = address.toLowerCase();
    return this.attempts.filter((c) => c.to.includes(a));
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    // close() waits for open connections; senders close theirs after each message, but do not wait forever.
    await Promise.race([new Promise<void>((resolve) => server.close(() => resolve())), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  }
}
