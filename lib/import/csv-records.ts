import fs from "node:fs";

/**
 * Streams the records of a CSV file (RFC 4180), each with the number of the line it starts on
 * (the header is line 1). A quoted cell may hold commas, quotes written twice and line breaks;
 * records end with LF or CRLF; a UTF-8 byte order mark is dropped; blank lines are skipped but
 * still counted. Records may have any number of cells (the caller compares them with the header).
 *
 * Our own parser, not a library: csv-parse read 72,000 records a second here, slower than the
 * database takes them, so the import waited on it; this one reads about 350,000, streams a
 * file of any size in chunks, and counts lines itself, which the import names in its problems.
 */

/**
 * The longest record the parser buffers, in characters. The longest valid record has about
 * 28,000 (every text cell at its limit, lib/domain/fields.ts, its quotes written twice), so this
 * leaves room for padding, while an unclosed quote, which would otherwise read the rest of the
 * file into one cell, stops here with a problem at its line.
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

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

const TOO_LONG = `record longer than ${MAX_RECORD_CHARS} characters (an unclosed quote?)`;
const NOT_CLOSED = "a quoted cell is never closed";
const BAD_CLOSING = 'a closing quote must be followed by a comma or the end of the line (write a quote inside a quoted cell as "")';
const BAD_OPENING = 'a quote inside a cell that does not begin with one (quote the whole cell and write the quote as "")';

/** One record read from `text` at `start`: its cells, where the next record begins, its line breaks. */
interface Read {
  cells: string[];
  end: number;
  breaks: number;
}

/**
 * Reads the record that begins at `start` (not a blank line). Returns null when `text` ends
 * before the record does and more text may follow (`final` false); throws the problem's message
 * when the record is not well-formed.
 */
function readRecord(text: string, start: number, final: boolean): Read | null {
  const cells: string[] = [];
  const length = text.length;
  let breaks = 0;
  let p = start;
  for (;;) {
    if (p < length && text.charCodeAt(p) === QUOTE) {
      // A quoted cell: up to the quote that is not followed by another.
      let value = "";
      let from = p + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q === -1) {
          if (final) throw new Error(NOT_CLOSED);
          return null;
        }
        if (q + 1 === length && !final) return null;
        if (text.charCodeAt(q + 1) === QUOTE) {
          value += text.slice(from, q + 1);
          from = q + 2;
          continue;
        }
        value += text.slice(from, q);
        p = q + 1;
        break;
      }
      for (let i = value.indexOf("\n"); i !== -1; i = value.indexOf("\n", i + 1)) breaks++;
      cells.push(value);
      if (p === length) {
        if (!final) return null;
        return { cells, end: p, breaks };
      }
      const c = text.charCodeAt(p);
      if (c === COMMA) {
        p++;
        continue;
      }
      if (c === LF) return { cells, end: p + 1, breaks: breaks + 1 };
      if (c === CR) {
        if (p + 1 === length && !final) return null;
        if (text.charCodeAt(p + 1) === LF) return { cells, end: p + 2, breaks: breaks + 1 };
      }
      throw new Error(BAD_CLOSING);
    }
    // An unquoted cell: up to the next comma or line end.
    let q = p;
    let c = 0;
    while (q < length) {
      c = text.charCodeAt(q);
      if (c === COMMA || c === LF) break;
      if (c === QUOTE) throw new Error(BAD_OPENING);
      q++;
    }
    if (q === length) {
      if (!final) return null;
      cells.push(text.slice(p, q));
      return { cells, end: q, breaks };
    }
    if (c === COMMA) {
      cells.push(text.slice(p, q));
      p = q + 1;
      continue;
    }
    // LF; a CR before it belongs to the line end
    cells.push(text.slice(p, q > p && text.charCodeAt(q - 1) === CR ? q - 1 : q));
    return { cells, end: q + 1, breaks: breaks + 1 };
  }
}

/** Bytes read at a time; tests pass tiny chunks to put a chunk's end at every position of a record. */
const CHUNK_BYTES = 1 << 18;

export async function* csvRecords(file: string, chunkBytes = CHUNK_BYTES): AsyncGenerator<CsvRecord> {
  const source = fs.createReadStream(file, { encoding: "utf8", highWaterMark: chunkBytes });
  let text = "";
  let line = 1;
  let first = true;
  try {
    const chunks = source[Symbol.asyncIterator]();
    for (let final = false; !final; ) {
      const next = await chunks.next();
      if (next.done) final = true;
      else text = text.length === 0 ? (next.value as string) : text + (next.value as string);
      if (first && text.length > 0) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
      }
      let p = 0;
      const length = text.length;
      while (p < length) {
        // Blank lines: skipped, counted.
        const c = text.charCodeAt(p);
        if (c === LF) {
          line++;
          p++;
          continue;
        }
        if (c === CR) {
          if (p + 1 === length && !final) break;
          if (text.charCodeAt(p + 1) === LF) {
            line++;
            p += 2;
            continue;
          }
        }
        let read: Read | null;
        try {
          read = readRecord(text, p, final);
        } catch (err) {
          throw new CsvSyntaxError(line, (err as Error).message);
        }
        if (read === null) {
          if (length - p > MAX_RECORD_CHARS) throw new CsvSyntaxError(line, TOO_LONG);
          break;
        }
        if (read.end - p > MAX_RECORD_CHARS) throw new CsvSyntaxError(line, TOO_LONG);
        yield { cells: read.cells, line };
        line += read.breaks;
        p = read.end;
      }
      text = p === length ? "" : text.slice(p);
    }
  } finally {
    source.destroy();
  }
}
