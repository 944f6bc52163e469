// A tiny terminal: enough of VT100 to replay what a program wrote to a pseudo-terminal and read the
// screen it leaves (text, line feeds, carriage returns, cursor up/down/column, erase in line), and to
// notice when a line overflowed the width (the terminal wrapped it: a frame redrawn in place breaks).

export interface Screen {
  /** Every line from the top of the scrollback, trailing spaces removed. */
  lines: string[];
  /** Times the terminal had to wrap a line at its right edge. */
  autoWraps: number;
  /** Cursor-up moves, the mark of a redraw in place. */
  cursorUps: number;
}

export function replay(bytes: string, width: number, height: number): Screen {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  let autoWraps = 0;
  let cursorUps = 0;
  const top = (): number => Math.max(0, lines.length - height);
  const lineAt = (r: number): string[] => {
    while (lines.length <= r) lines.push([]);
    return lines[r]!;
  };
  for (let i = 0; i < bytes.length; i++) {
    const ch = bytes[i]!;
    if (ch === '\x1b' && bytes[i + 1] === '[') {
      let j = i + 2;
      while (j < bytes.length && !/[@-~]/.test(bytes[j]!)) j++;
      const params = bytes.slice(i + 2, j);
      const final = bytes[j];
      i = j;
      if (params.startsWith('?')) continue; // modes: cursor shown or hidden, synchronized output
      const n = params === '' ? undefined : Number(params.split(';')[0]);
      if (final === 'A') {
        row = Math.max(top(), row - (n ?? 1));
        cursorUps++;
      } else if (final === 'B') row = Math.min(lines.length - 1, row + (n ?? 1));
      else if (final === 'G') col = Math.max(0, (n ?? 1) - 1);
      else if (final === 'K') {
        const line = lineAt(row);
        if ((n ?? 0) === 2) line.length = 0;
        else if ((n ?? 0) === 0) line.length = Math.min(line.length, col);
        else for (let k = 0; k <= col && k < line.length; k++) line[k] = ' ';
      }
      continue;
    }
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      // A pseudo-terminal's output carries CR LF (onlcr); a stream written directly, LF alone: both start a line.
      row++;
      col = 0;
      lineAt(row);
    } else if (ch >= ' ') {
      if (col >= width) {
        autoWraps++;
        row++;
        col = 0;
      }
      const line = lineAt(row);
      while (line.length < col) line.push(' ');
      line[col] = ch;
      col++;
    }
  }
  return { lines: lines.map((l) => l.join('').trimEnd()), autoWraps, cursorUps };
}
