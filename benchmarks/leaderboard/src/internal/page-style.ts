/** The CSS both pages share: one look for the leaderboard and the rollout viewer. */
export const BASE_CSS = `
:root {
  --bg: #f6f7f9; --card: #ffffff; --ink: #1b1f24; --muted: #5b6573; --line: #e2e6ec; --head: #eef1f5;
  --accent: #2364aa; --good: #1f8a5b; --bad: #b3392f; --warn: #a86200;
  --bar-track: #e4e8ee; --bar-fill: #3d8fd1; --whisker: #15324f;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.page-header { background: #1d2733; color: #f3f6fa; padding: 18px 28px 16px; }
.page-header h1 { margin: 0; font-size: 22px; font-weight: 650; letter-spacing: .2px; }
.page-header .meta { margin: 4px 0 0; color: #b7c3d1; font-size: 13px; }
.page-header .meta a { color: #9cc8f5; }
main { padding: 20px 28px 40px; max-width: 1600px; }
.muted { color: var(--muted); }
.tag { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 11px; line-height: 17px;
  background: var(--head); color: var(--muted); border: 1px solid var(--line); vertical-align: 1px; white-space: nowrap; }
.tag.good { color: var(--good); border-color: #bfe3d0; background: #ecf8f1; }
.tag.bad { color: var(--bad); border-color: #efc9c4; background: #fbefed; }
.tag.warn { color: var(--warn); border-color: #f0d7b0; background: #fdf5e8; }
`;
