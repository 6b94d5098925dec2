/**
 * Text without the byte order mark a Windows editor or PowerShell's `Out-File` puts first. `JSON.parse`
 * rejects it, and the error ("Unexpected token '\uFEFF'") points at a character no editor shows.
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
