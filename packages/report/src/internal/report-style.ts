/** The page's CSS: inline, like everything else, so the file works offline and when mailed around. */
export const REPORT_CSS = `
:root {
  --bg: #f6f7f9; --card: #ffffff; --ink: #1b1f24; --muted: #5b6573; --line: #e2e6ec; --head: #eef1f5;
  --accent: #2364aa; --good: #1f8a5b; --bad: #b3392f; --warn: #a86200;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
.page-header { background: #1d2733; color: #f3f6fa; padding: 18px 28px 16px; }
.page-header h1 { margin: 0; font-size: 22px; font-weight: 650; }
.page-header .meta { margin: 4px 0 0; color: #b7c3d1; font-size: 13px; }
main { padding: 16px 28px 40px; max-width: 1680px; }
section { margin-bottom: 26px; }
h2 { font-size: 17px; margin: 0 0 10px; }
.muted { color: var(--muted); }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 7px; vertical-align: -1px; flex: none; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 8px; }
.legend-item { display: inline-flex; align-items: center; border: 1px solid var(--line); background: var(--card); border-radius: 14px;
  padding: 3px 11px; font: inherit; font-size: 13px; cursor: pointer; color: var(--ink); }
.legend-seeds { margin-left: 6px; }
.legend-item.off { opacity: .42; text-decoration: line-through; }
.summary-table { border-collapse: collapse; background: var(--card); border: 1px solid var(--line); border-radius: 8px; font-size: 13px; }
.summary-table th { background: var(--head); text-align: left; font-weight: 600; padding: 6px 12px; border-bottom: 1px solid var(--line); white-space: nowrap; }
.summary-table td { padding: 6px 12px; border-bottom: 1px solid #f0f2f5; }
.summary-table td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
/* A group's name is its label, anyone's text: a long one wraps (anywhere, even without spaces) instead of pushing
   the number columns off the page. */
.group-cell { overflow-wrap: anywhere; min-width: 12em; }
.legend-item { max-width: 100%; text-align: left; }
.legend-name { overflow-wrap: anywhere; min-width: 0; }
/* A label of a page's length (a config pasted into --label) is cut to three lines, the whole of it a tooltip:
   shown in full, it filled the screen twice over before the first chart. */
.group-label { display: flex; align-items: baseline; }
.legend-name, .group-name { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 3; overflow: hidden; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 14px; }
.chart-card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px 6px; }
.calibration-card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px 6px; }
.chart-card h3, .calibration-card h3 { margin: 0 0 4px; font-size: 13px; font-family: var(--mono); font-weight: 600; }
.curve-chart { width: 100%; height: auto; display: block; }
.curve-chart .grid { stroke: #edf0f4; }
.curve-chart .frame { stroke: #cfd5dd; }
.curve-chart .tick-mark { stroke: #9aa4b1; }
.curve-chart .tick { font-size: 11px; fill: var(--muted); font-variant-numeric: tabular-nums; }
.curve-chart .axis-label { font-size: 11px; fill: var(--muted); font-family: var(--mono); }
.curve-chart .band { opacity: .16; stroke: none; }
.curve-chart .seed-line { fill: none; stroke-width: 1; opacity: .45; }
.curve-chart .seed-dot { opacity: .7; }
.curve-chart .mean { fill: none; stroke-width: 2.2; stroke-linejoin: round; }
.curve-chart .hover-rule { stroke: #8792a2; stroke-dasharray: 3 3; }
.curve-chart .overlay { fill: transparent; }
.calibration-chart { width: 100%; max-width: 420px; height: auto; display: block; }
.calibration-chart .grid { stroke: #edf0f4; }
.calibration-chart .frame { stroke: #cfd5dd; }
.calibration-chart .tick { font-size: 11px; fill: var(--muted); font-variant-numeric: tabular-nums; }
.calibration-chart .axis-label { font-size: 11px; fill: var(--muted); font-family: var(--mono); }
.calibration-chart .calibration-diagonal { stroke: #8792a2; stroke-dasharray: 4 3; }
.calibration-chart .calibration-dot { opacity: .85; }
.calibration-chart .calibration-error { stroke-width: 1.5; }
.calibration-meta, .calibration-source { margin: 0 0 6px; font-size: 12px; }
.calibration-source { font-family: var(--mono); overflow-wrap: anywhere; }
.tooltip { position: absolute; z-index: 10; background: #1d2733; color: #f3f6fa; padding: 7px 10px; border-radius: 6px; font-size: 12px;
  pointer-events: none; max-width: 420px; box-shadow: 0 2px 8px rgba(0,0,0,.2); }
.tooltip-title { font-weight: 600; margin-bottom: 3px; }
.tooltip-row { display: flex; align-items: center; }
.viewer-controls { display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: center; margin-bottom: 10px; }
.control { display: inline-flex; gap: 6px; align-items: center; font-size: 13px; }
.control select { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 5px; background: var(--card); max-width: 420px; }
.group-header, .tags { display: flex; flex-wrap: wrap; gap: 5px; margin-bottom: 8px; }
.tag { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 11px; line-height: 18px; background: var(--head);
  color: var(--muted); border: 1px solid var(--line); white-space: nowrap; }
.tag.good { color: var(--good); border-color: #bfe3d0; background: #ecf8f1; }
.tag.bad { color: var(--bad); border-color: #efc9c4; background: #fbefed; }
.tag.warn { color: var(--warn); border-color: #f0d7b0; background: #fdf5e8; }
.warning { background: #fdf5e8; color: var(--warn); border: 1px solid #f0d7b0; border-radius: 6px; padding: 5px 10px; margin-bottom: 6px; font-size: 12.5px; }
.viewer-layout { display: grid; grid-template-columns: minmax(360px, 1.4fr) minmax(320px, 1fr); gap: 14px; align-items: start; }
.viewer-left { min-width: 0; }
.tree-scroll { overflow: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; margin-bottom: 10px; max-height: 640px; }
.rollout-tree { display: block; margin: 0 auto; }
.rollout-tree .tree-edge { fill: none; stroke: #aab4c1; stroke-linecap: round; }
.rollout-tree .tree-edge.shared { stroke: #7d8a9c; }
.rollout-tree .tree-edge.on-path { stroke: var(--accent); }
.rollout-tree .edge-count { font-size: 10px; fill: var(--muted); }
.rollout-tree .tree-node, .rollout-tree .tree-root { cursor: pointer; stroke: #44505f; stroke-width: 1.5; }
.rollout-tree .tree-node { fill: #ffffff; }
.rollout-tree .tree-node.ends-here { stroke-width: 3; }
.rollout-tree .tree-root { fill: #dfe5ec; }
.rollout-tree .on-path { stroke: var(--accent); }
.rollout-tree .selected { stroke: var(--accent); stroke-width: 3.5; }
.rollout-tree .tree-node:focus, .rollout-tree .tree-root:focus { outline: none; stroke: var(--accent); stroke-width: 3.5; }
.rollout-tree .root-label, .rollout-tree .leaf-label { font-size: 10.5px; fill: var(--muted); font-variant-numeric: tabular-nums; }
.reward-scale { display: flex; gap: 8px; align-items: center; font-size: 12px; margin-bottom: 6px; }
.reward-bar { display: inline-block; width: 140px; height: 10px; border-radius: 5px; }
.rollout-list { background: var(--card); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.rollout-item { display: grid; grid-template-columns: 18px 1fr auto; gap: 8px; width: 100%; text-align: left; padding: 6px 12px; border: 0;
  border-bottom: 1px solid #f0f2f5; background: none; font: inherit; font-size: 12.5px; cursor: pointer; color: var(--ink); }
.rollout-item:hover { background: #f3f7fc; }
.rollout-item[aria-current="true"] { background: #e3eefa; box-shadow: inset 3px 0 0 var(--accent); }
.rollout-item .mark { font-weight: 700; text-align: center; }
.mark.good { color: var(--good); } .mark.bad { color: var(--bad); } .mark.warn { color: var(--warn); }
.rollout-id { font-family: var(--mono); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.rollout-item .stats { color: var(--muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
.node-detail { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; min-height: 120px;
  position: sticky; top: 10px; max-height: calc(100vh - 20px); overflow: auto; }
.node-detail h3 { margin: 0; font-size: 15px; }
.node-id { font-family: var(--mono); font-size: 11.5px; margin-bottom: 6px; }
.text-block { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; overflow: hidden; }
.text-block .text-title { font-size: 11px; font-weight: 700; letter-spacing: .4px; text-transform: uppercase; padding: 4px 10px;
  background: #f1f3f6; color: #3c4756; }
.ending .text-title { font-size: 12px; font-weight: 600; padding: 5px 10px 0; color: #3c4756; }
.text-block.action { border-color: #c9dcf2; } .text-block.action .text-title { background: #eaf2fc; color: #1d4f86; }
.text-block.error { border-color: #efc9c4; } .text-block.error .text-title { background: #fbefed; color: var(--bad); }
.ending { border: 1px dashed var(--line); border-radius: 6px; margin: 8px 0; padding-bottom: 2px; }
.ending .tags { padding: 6px 10px 0; }
pre { margin: 0; padding: 8px 10px; white-space: pre-wrap; word-break: break-word; font-family: var(--mono); font-size: 12px; line-height: 1.5; }
pre:empty::before { content: "(empty)"; color: var(--muted); font-style: italic; }
.turn-label { font-size: 11px; color: var(--muted); margin-top: 12px; }
`;
