import fs from "node:fs";
import { Transform } from "node:stream";
import { type InfoRecord, type Options, parse } from "csv-parse";

/**
 * Streams the records of a CSV file, each with the number of the line it starts on (the header
 * is line 1). csv-parse's own line counter counts a CRLF inside a quoted cell twice, so lines are
 * counted here from the bytes, at the byte offset where csv-parse says each record ended.
 */

/**
 * The longest record the parser buffers, in characters of its cells (UTF-8 bytes while a cell is
 * still being read). The longest valid record has about 24,000 characters (every text cell at its
 * limit, lib/domain/fields.ts), so this leaves room for padding, while an unclosed quote, which
 * would otherwise read the rest of the file into one cell, stops here with a problem at its line.
 */
export const MAX_RECORD_CHARS = 65_536;

export interface CsvRecord {
  cells: string[];
  /** first line of the record */
  line: number;
}

/** A file that is not well-formed CSV; `line` is the first line of the record that broke. */
export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** Line number at any byte offset the parser has reached, holding only the bytes not yet passed. */
class LineCounter {
  private chunks: Buffer[] = [];
  private chunkOffset = 0; // byte offset of chunks[0][0]
  private offset = 0; // bytes counted so far
  private line = 1;

  feed(chunk: Buffer) {
    this.chunks.push(chunk);
  }

  lineAt(target: number): number {
    while (this.offset < target && this.chunks.length > 0) {
      const chunk = this.chunks[0];
      const end = Math.min(target - this.chunkOffset, chunk.length);
      for (let i = chunk.indexOf(10, this.offset - this.chunkOffset); i !== -1 && i < end; i = chunk.indexOf(10, i + 1)) this.line++;
      this.offset = this.chunkOffset + end;
      if (end === chunk.length) {
        this.chunks.shift();
        this.chunkOffset += chunk.length;
      }
    }
    return this.line;
  }
}

interface ParseInfo {
  bytes: number;
  empty_lines: number;
}

export async function* csvRecords(file: string): AsyncGenerator<CsvRecord> {
  const counter = new LineCounter();
  let recordStart = 0;
  let emptyLines = 0;
  // Blank lines are skipped; the ones right before a record move its first line down.
  const firstLine = (info: ParseInfo) => counter.lineAt(recordStart) + (info.empty_lines - emptyLines);

  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counter.feed(chunk);
      done(null, chunk);
    },
  });
  const options: Options<CsvRecord, string[]> = {
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_CHARS,
    on_record: (cells: string[], info: InfoRecord): CsvRecord => {
      const line = firstLine(info);
      recordStart = info.bytes;
      emptyLines = info.empty_lines;
      return { cells, line };
    },
  };
  // csv-parse types a mapping on_record only together with `columns`, which we do not use.
  const parser = parse(options as unknown as Options);
  const source = fs.createReadStream(file);
  source.on("error", (err) => parser.destroy(err));
  source.pipe(tap).pipe(parser);
  try {
    for await (const record of parser as AsyncIterable<CsvRecord>) yield record;
  } catch (err) {
    const e = err as Partial<ParseInfo> & { code?: string; message: string };
    if (!e.code?.startsWith("CSV_")) throw err;
    const line = firstLine({ bytes: e.bytes ?? recordStart, empty_lines: e.empty_lines ?? emptyLines });
    throw new CsvSyntaxError(line, describeCsvError(e.code, e.message));
  } finally {
    source.destroy();
  }
}

function describeCsvError(code: string, message: string): string {
  switch (code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return "a quoted cell is never closed";
    case "CSV_INVALID_CLOSING_QUOTE":
      return 'a closing quote must be followed by a comma or the end of the line (write a quote inside a quoted cell as "")';
    case "CSV_MAX_RECORD_SIZE":
      return `record longer than ${MAX_RECORD_CHARS} characters (an unclosed quote?)`;
    default:
      return `not valid CSV: ${message.replace(/ at line \d+/, "")}`;
  }
}
