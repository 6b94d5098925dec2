import type { BandPoint, GroupCurve, MetricCurves } from '../learning-curves';
import type { ReportCalibration, ReportData, ReportRollouts } from '../report-data';
import type { PromptGroupView, RolloutNode, RolloutView } from '../rollout-tree';
import type { SeedStatistic } from '../summary-table';

/**
 * The page's script. It is type-checked here against the data it draws and shipped as its own source text
 * (`reportClient.toString()`), so it must stay self-contained: no value imports, no helpers outside this
 * function, nothing the compiler would rewrite (the target is ES2022, so it emits the code as written).
 * All text goes in through `textContent` or attributes: a model's action is never parsed as HTML.
 */
export function reportClient(data: ReportData): void {
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const hiddenGroups = new Set<number>();

  function el<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    className?: string,
    text?: string | number,
  ): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function svg(tag: string, attributes: Record<string, string | number> = {}, className?: string): SVGElement {
    const node = document.createElementNS(SVG_NS, tag) as SVGElement;
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    if (className) node.setAttribute('class', className);
    return node;
  }

  function byId(id: string): HTMLElement {
    const node = document.getElementById(id);
    if (!node) throw new Error(`the page has no #${id}`);
    return node;
  }

  /**
   * Short, readable numbers: 3 significant digits, k/M/G past ten thousand, a real minus sign. Past a thousand G
   * (a diverged loss) and below a thousandth, `1.5e13` and `2.5e-5`: as G, or as decimals, they would grow wider
   * than the chart's margin and be cut off at the left ("1.5e+292G" read as "5e+292G").
   */
  function fmt(value: number, digits = 3): string {
    if (!Number.isFinite(value)) return '—';
    const magnitude = Math.abs(value);
    let text: string;
    if (magnitude >= 1e12 || (magnitude > 0 && magnitude < 1e-3))
      text = value
        .toExponential(digits - 1)
        .replace(/\.?0+e/, 'e')
        .replace('e+', 'e');
    else if (magnitude >= 1e9) text = `${+(value / 1e9).toPrecision(digits)}G`;
    else if (magnitude >= 1e6) text = `${+(value / 1e6).toPrecision(digits)}M`;
    else if (magnitude >= 1e4) text = `${+(value / 1e3).toPrecision(digits)}k`;
    else if (magnitude >= 100 || Number.isInteger(value)) text = String(Math.round(value * 10) / 10);
    else text = String(+value.toPrecision(digits));
    return text.replace(/^-/, '\u2212');
  }

  /**
   * An axis's tick labels: as short as `fmt` makes them, with more digits where that would print two ticks alike.
   * Seeds that stop a few tokens apart span 24,523 to 24,576 steps, and three digits labelled the axis
   * "24.5k 24.5k 24.6k 24.6k 24.6k".
   */
  function tickLabels(values: readonly number[]): string[] {
    let labels = values.map((value) => fmt(value));
    for (let digits = 4; digits <= 12 && new Set(labels).size < labels.length; digits++) {
      labels = values.map((value) => fmt(value, digits));
    }
    return labels;
  }

  function fmtStatistic(statistic: SeedStatistic | null, seeds: number): string {
    if (!statistic) return '—';
    const spread = statistic.n > 1 ? ` ± ${fmt(statistic.std)}` : '';
    const count = statistic.n < seeds ? ` (${statistic.n} of ${seeds} seeds)` : '';
    return `${fmt(statistic.mean)}${spread}${count}`;
  }

  /** About `count` round tick values covering [low, high]. */
  function ticks(low: number, high: number, count: number): number[] {
    const span = high - low;
    const rough = span / Math.max(1, count);
    const power = Math.pow(10, Math.floor(Math.log10(rough)));
    const step =
      [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => span / candidate <= count) ?? 10 * power;
    const values: number[] = [];
    for (let value = Math.ceil(low / step) * step; value <= high + step * 1e-9; value += step) {
      values.push(Math.abs(value) < step * 1e-9 ? 0 : value);
    }
    return values;
  }

  function setGroupVisible(group: number, visible: boolean): void {
    if (visible) hiddenGroups.delete(group);
    else hiddenGroups.add(group);
    document.querySelectorAll(`[data-group="${group}"]`).forEach((node) => {
      if (node.classList.contains('legend-item')) node.classList.toggle('off', !visible);
      else (node as SVGElement).style.display = visible ? '' : 'none';
    });
  }

  // ---- legend and summary table ----

  function renderLegend(): void {
    const legend = byId('legend');
    data.groups.forEach((group, index) => {
      const item = el('button', 'legend-item');
      item.type = 'button';
      item.dataset.group = String(index);
      item.title = 'show or hide this group in every chart';
      const swatch = el('span', 'swatch');
      swatch.style.background = group.color;
      const name = el('span', 'legend-name', group.name);
      name.title = group.name;
      item.append(
        swatch,
        name,
        el('span', 'legend-seeds muted', `${group.runs.length} seed${group.runs.length === 1 ? '' : 's'}`),
      );
      item.addEventListener('click', () => setGroupVisible(index, hiddenGroups.has(index)));
      legend.append(item);
    });
  }

  function renderSummary(): void {
    const table = el('table', 'summary-table');
    const head = el('tr');
    for (const title of [
      'group',
      'seeds',
      'eval success (final)',
      'eval return (final)',
      'train success (final)',
      'global step',
      'generated tokens',
      'last iteration',
    ]) {
      head.append(el('th', '', title));
    }
    table.append(el('thead'));
    table.tHead!.append(head);
    const body = el('tbody');
    for (const row of data.summary) {
      const tr = el('tr');
      const name = el('td', 'group-cell');
      const swatch = el('span', 'swatch');
      swatch.style.background = data.groups[row.group]!.color;
      const text = el('span', 'group-name', row.name);
      text.title = row.name;
      const label = el('div', 'group-label');
      label.append(swatch, text);
      name.append(label);
      tr.append(
        name,
        el('td', 'number', row.seeds),
        el('td', 'number', fmtStatistic(row.evalSuccess, row.seeds)),
        el('td', 'number', fmtStatistic(row.evalReturn, row.seeds)),
        el('td', 'number', fmtStatistic(row.trainSuccess, row.seeds)),
        el('td', 'number', fmtStatistic(row.globalStep, row.seeds)),
        el('td', 'number', fmtStatistic(row.generatedTokens, row.seeds)),
        el('td', 'number', row.lastIteration === null ? '—' : row.lastIteration),
      );
      body.append(tr);
    }
    table.append(body);
    byId('summary').append(table);
  }

  // ---- learning curves ----

  const WIDTH = 520;
  const HEIGHT = 300;
  const MARGIN = { left: 58, right: 14, top: 12, bottom: 38 };

  function pathOf(points: readonly (readonly [number, number])[]): string {
    return points.map(([x, y], index) => `${index === 0 ? 'M' : 'L'}${x.toFixed(1)},${y.toFixed(1)}`).join('');
  }

  function renderChart(chart: MetricCurves): HTMLElement {
    const card = el('div', 'chart-card');
    card.dataset.metric = chart.metric;
    card.append(el('h3', '', chart.metric));
    if (chart.groups.length === 0) {
      card.append(el('p', 'muted', 'No run logged this metric.'));
      return card;
    }
    let xLow = Infinity;
    let xHigh = -Infinity;
    let yLow = Infinity;
    let yHigh = -Infinity;
    for (const curve of chart.groups) {
      for (const seed of curve.seeds) {
        for (const [x, y] of seed.points) {
          xLow = Math.min(xLow, x);
          xHigh = Math.max(xHigh, x);
          yLow = Math.min(yLow, y);
          yHigh = Math.max(yHigh, y);
        }
      }
      for (const point of curve.band) {
        yLow = Math.min(yLow, point.mean - point.std);
        yHigh = Math.max(yHigh, point.mean + point.std);
      }
    }
    if (xHigh === xLow) {
      xLow -= 1;
      xHigh += 1;
    }
    if (yHigh === yLow) {
      yLow -= Math.abs(yLow) * 0.1 || 1;
      yHigh += Math.abs(yHigh) * 0.1 || 1;
    }
    const yPad = (yHigh - yLow) * 0.04;
    yLow -= yPad;
    yHigh += yPad;
    const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
    const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
    const sx = (x: number): number => MARGIN.left + ((x - xLow) / (xHigh - xLow)) * plotWidth;
    const sy = (y: number): number => MARGIN.top + (1 - (y - yLow) / (yHigh - yLow)) * plotHeight;

    const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img' }, 'curve-chart');
    root.setAttribute('aria-label', `${chart.metric} against ${data.xAxis}`);
    const axes = svg('g', {}, 'axes');
    const yTicks = ticks(yLow, yHigh, 5);
    const yLabels = tickLabels(yTicks);
    yTicks.forEach((value, index) => {
      const y = sy(value);
      axes.append(svg('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y, y2: y }, 'grid'));
      const label = svg('text', { x: MARGIN.left - 6, y: y + 4, 'text-anchor': 'end' }, 'tick');
      label.textContent = yLabels[index]!;
      axes.append(label);
    });
    const xTicks = ticks(xLow, xHigh, 6);
    const xLabels = tickLabels(xTicks);
    xTicks.forEach((value, index) => {
      const x = sx(value);
      axes.append(
        svg('line', { x1: x, x2: x, y1: HEIGHT - MARGIN.bottom, y2: HEIGHT - MARGIN.bottom + 4 }, 'tick-mark'),
      );
      const label = svg('text', { x, y: HEIGHT - MARGIN.bottom + 16, 'text-anchor': 'middle' }, 'tick');
      label.textContent = xLabels[index]!;
      axes.append(label);
    });
    axes.append(
      svg('rect', { x: MARGIN.left, y: MARGIN.top, width: plotWidth, height: plotHeight, fill: 'none' }, 'frame'),
    );
    const axisLabel = svg(
      'text',
      { x: MARGIN.left + plotWidth / 2, y: HEIGHT - 4, 'text-anchor': 'middle' },
      'axis-label',
    );
    axisLabel.textContent = data.xAxis;
    axes.append(axisLabel);
    root.append(axes);

    const drawCurve = (curve: GroupCurve): SVGElement => {
      const color = data.groups[curve.group]!.color;
      const layer = svg('g', {}, 'curve');
      layer.dataset.group = String(curve.group);
      if (hiddenGroups.has(curve.group)) layer.style.display = 'none';
      const upper = curve.band.map((point): [number, number] => [sx(point.x), sy(point.mean + point.std)]);
      const lower = curve.band.map((point): [number, number] => [sx(point.x), sy(point.mean - point.std)]).reverse();
      // Seeds whose x ranges do not overlap have no band (see aggregateSeeds): a path of only "Z" is an SVG error.
      if (curve.seeds.length > 1 && curve.band.length > 0) {
        layer.append(svg('path', { d: `${pathOf([...upper, ...lower])}Z`, fill: color }, 'band'));
      }
      for (const seed of curve.seeds) {
        const points = seed.points.map(([x, y]): [number, number] => [sx(x), sy(y)]);
        // A seed with one point (an evaluation logged only at the end) is a line of no length: it is drawn as a
        // dot, or a chart of such seeds, logged a few tokens apart, would be empty.
        const line =
          points.length === 1
            ? svg('circle', { cx: points[0]![0], cy: points[0]![1], r: 3, fill: color }, 'seed-dot')
            : svg('path', { d: pathOf(points), stroke: color }, 'seed-line');
        const title = svg('title');
        title.textContent = `${data.groups[curve.group]!.name}, seed ${seed.seed}`;
        line.append(title);
        layer.append(line);
      }
      const means = curve.band.map((point): [number, number] => [sx(point.x), sy(point.mean)]);
      if (means.length > 0) layer.append(svg('path', { d: pathOf(means), stroke: color }, 'mean'));
      if (means.length === 1)
        layer.append(svg('circle', { cx: means[0]![0], cy: means[0]![1], r: 3, fill: color }, 'mean-dot'));
      return layer;
    };
    chart.groups.forEach((curve) => root.append(drawCurve(curve)));

    // Hover: a rule at the nearest logged x and each visible group's mean ± std there.
    const rule = svg('line', { y1: MARGIN.top, y2: HEIGHT - MARGIN.bottom }, 'hover-rule');
    rule.style.display = 'none';
    root.append(rule);
    const overlay = svg('rect', { x: MARGIN.left, y: MARGIN.top, width: plotWidth, height: plotHeight }, 'overlay');
    root.append(overlay);
    const tooltip = byId('tooltip');
    overlay.addEventListener('mousemove', (event) => {
      const box = (root as SVGSVGElement).getBoundingClientRect();
      const x = xLow + (((event.clientX - box.left) * (WIDTH / box.width) - MARGIN.left) / plotWidth) * (xHigh - xLow);
      const rows: { name: string; color: string; point: BandPoint }[] = [];
      let nearestX = x;
      let nearestDistance = Infinity;
      for (const curve of chart.groups) {
        if (hiddenGroups.has(curve.group)) continue;
        let best: BandPoint | undefined;
        for (const point of curve.band) if (!best || Math.abs(point.x - x) < Math.abs(best.x - x)) best = point;
        if (!best) continue;
        rows.push({ name: data.groups[curve.group]!.name, color: data.groups[curve.group]!.color, point: best });
        if (Math.abs(best.x - x) < nearestDistance) {
          nearestDistance = Math.abs(best.x - x);
          nearestX = best.x;
        }
      }
      if (rows.length === 0) return;
      rule.setAttribute('x1', String(sx(nearestX)));
      rule.setAttribute('x2', String(sx(nearestX)));
      rule.style.display = '';
      tooltip.replaceChildren(el('div', 'tooltip-title', `${chart.metric} at ${data.xAxis} ≈ ${fmt(nearestX)}`));
      for (const row of rows) {
        const line = el('div', 'tooltip-row');
        const swatch = el('span', 'swatch');
        swatch.style.background = row.color;
        const spread = row.point.n > 1 ? ` ± ${fmt(row.point.std)} (${row.point.n} seeds)` : ' (1 seed)';
        line.append(swatch, el('span', '', `${row.name}: ${fmt(row.point.mean)}${spread} at ${fmt(row.point.x)}`));
        tooltip.append(line);
      }
      tooltip.hidden = false;
      tooltip.style.left = `${event.pageX + 14}px`;
      tooltip.style.top = `${event.pageY + 12}px`;
    });
    overlay.addEventListener('mouseleave', () => {
      rule.style.display = 'none';
      tooltip.hidden = true;
    });
    card.append(root);
    return card;
  }

  function renderCharts(): void {
    const charts = byId('charts');
    if (data.charts.length === 0) charts.append(el('p', 'muted', 'No metrics to chart.'));
    for (const chart of data.charts) charts.append(renderChart(chart));
  }

  // ---- critic calibration ----

  /**
   * One run's critic: each bin of held-out states (equal counts, by predicted V) as a dot at (mean V, mean
   * return R) with R's standard error, sized by its states; on the dashed diagonal a critic is calibrated.
   */
  function renderCalibration(calibration: ReportCalibration): HTMLElement {
    const run = data.runs[calibration.run]!;
    const card = el('div', 'calibration-card');
    card.dataset.run = run.name;
    card.append(el('h3', '', `${run.name} (${run.algorithm}, seed ${run.seed})`));
    const ev = calibration.explainedVariance === null ? '—' : fmt(calibration.explainedVariance);
    const episodes = calibration.episodes === null ? '' : ` of ${calibration.episodes} episodes`;
    card.append(
      el(
        'p',
        'muted calibration-meta',
        `${calibration.states} ${calibration.split} states${episodes} · explained variance ${ev}`,
      ),
    );
    // Both axes cover [0, 1] (a success probability) and whatever falls outside it.
    let low = 0;
    let high = 1;
    for (const bin of calibration.bins) {
      low = Math.min(low, bin.meanValue, bin.meanReturn - bin.returnError);
      high = Math.max(high, bin.meanValue, bin.meanReturn + bin.returnError);
    }
    const size = 300;
    const margin = { left: 52, right: 14, top: 12, bottom: 40 };
    const plot = size - margin.left - margin.right;
    const plotHeight = size - margin.top - margin.bottom;
    const sx = (v: number): number => margin.left + ((v - low) / (high - low)) * plot;
    const sy = (v: number): number => margin.top + (1 - (v - low) / (high - low)) * plotHeight;
    const root = svg('svg', { viewBox: `0 0 ${size} ${size}`, role: 'img' }, 'calibration-chart');
    root.setAttribute('aria-label', `predicted V against mean return, ${run.name}`);
    const axes = svg('g', {}, 'axes');
    for (const value of ticks(low, high, 5)) {
      axes.append(svg('line', { x1: margin.left, x2: size - margin.right, y1: sy(value), y2: sy(value) }, 'grid'));
      const y = svg('text', { x: margin.left - 6, y: sy(value) + 4, 'text-anchor': 'end' }, 'tick');
      y.textContent = fmt(value);
      const x = svg('text', { x: sx(value), y: size - margin.bottom + 16, 'text-anchor': 'middle' }, 'tick');
      x.textContent = fmt(value);
      axes.append(y, x);
    }
    axes.append(
      svg('rect', { x: margin.left, y: margin.top, width: plot, height: plotHeight, fill: 'none' }, 'frame'),
      svg('line', { x1: sx(low), y1: sy(low), x2: sx(high), y2: sy(high) }, 'calibration-diagonal'),
    );
    const xLabel = svg('text', { x: margin.left + plot / 2, y: size - 6, 'text-anchor': 'middle' }, 'axis-label');
    xLabel.textContent = 'predicted V (bin mean)';
    const yLabel = svg(
      'text',
      {
        x: 12,
        y: margin.top + plotHeight / 2,
        'text-anchor': 'middle',
        transform: `rotate(-90 12 ${margin.top + plotHeight / 2})`,
      },
      'axis-label',
    );
    yLabel.textContent = 'mean return R';
    axes.append(xLabel, yLabel);
    root.append(axes);
    const color = data.groups[run.group]!.color;
    const most = Math.max(...calibration.bins.map((bin) => bin.states));
    for (const bin of calibration.bins) {
      const dot = svg('g', {}, 'calibration-bin');
      const x = sx(bin.meanValue);
      dot.append(
        svg(
          'line',
          {
            x1: x,
            x2: x,
            y1: sy(bin.meanReturn - bin.returnError),
            y2: sy(bin.meanReturn + bin.returnError),
            stroke: color,
          },
          'calibration-error',
        ),
        svg(
          'circle',
          { cx: x, cy: sy(bin.meanReturn), r: 3 + 4 * Math.sqrt(bin.states / most), fill: color },
          'calibration-dot',
        ),
      );
      const title = svg('title');
      title.textContent = `${bin.states} states: mean V ${fmt(bin.meanValue)}, mean R ${fmt(bin.meanReturn)} ± ${fmt(bin.returnError)}`;
      dot.append(title);
      root.append(dot);
    }
    card.append(root);
    if (calibration.source) card.append(el('p', 'muted calibration-source', calibration.source));
    return card;
  }

  function renderCalibrations(): void {
    if (data.calibrations.length === 0) return;
    const holder = byId('calibration');
    for (const calibration of data.calibrations) holder.append(renderCalibration(calibration));
  }

  // ---- rollout viewer ----

  function rewardColor(reward: number, range: readonly [number, number]): string {
    const [low, high] = range;
    const t = high > low ? Math.min(1, Math.max(0, (reward - low) / (high - low))) : 0.5;
    // red → amber → green, in RGB: bad rewards read red, good ones green.
    const stops = [
      [192, 57, 43],
      [224, 180, 58],
      [31, 138, 91],
    ];
    const scaled = t * 2;
    const index = Math.min(1, Math.floor(scaled));
    const local = scaled - index;
    const from = stops[index]!;
    const to = stops[index + 1]!;
    const channel = (k: number): number => Math.round(from[k]! + (to[k]! - from[k]!) * local);
    return `rgb(${channel(0)}, ${channel(1)}, ${channel(2)})`;
  }

  function outcomeMark(rollout: RolloutView): { text: string; kind: string } {
    if (rollout.stopReason === 'error') return { text: '!', kind: 'warn' };
    if (rollout.success === true) return { text: '✓', kind: 'good' };
    if (rollout.success === false) return { text: '✗', kind: 'bad' };
    return { text: '·', kind: '' };
  }

  function tag(text: string, kind = ''): HTMLElement {
    return el('span', kind ? `tag ${kind}` : 'tag', text);
  }

  function textBlock(title: string, text: string, className: string): HTMLElement {
    const block = el('div', `text-block ${className}`);
    block.append(el('div', 'text-title', title), el('pre', '', text));
    return block;
  }

  function rolloutTags(rollout: RolloutView): HTMLElement {
    const line = el('div', 'tags');
    const mark = outcomeMark(rollout);
    line.append(
      tag(`reward ${fmt(rollout.reward)}`, mark.kind),
      tag(rollout.success === null ? 'success unknown' : rollout.success ? 'success' : 'no success', mark.kind),
      tag(`stop: ${rollout.stopReason}`, rollout.stopReason === 'error' ? 'warn' : ''),
      tag(`${rollout.generatedTokens} generated tokens`),
    );
    if (rollout.tree) line.append(tag(`round ${rollout.tree.round}, ${rollout.tree.sharedTurns} shared turns`));
    return line;
  }

  function showNode(group: PromptGroupView, index: number): void {
    const node = group.nodes[index]!;
    const detail = byId('node-detail');
    detail.replaceChildren();
    const heading = el('h3', '', node.turn ? `Turn ${node.depth}` : `Tree ${node.tree}: start`);
    detail.append(heading, el('div', 'node-id muted', `node ${node.id}`));
    const facts = el('div', 'tags');
    facts.append(tag(`${node.through} rollout${node.through === 1 ? '' : 's'} through here`));
    if (node.turn) facts.append(tag(`turn reward ${fmt(node.turn.reward)}`));
    if (node.turn?.role) facts.append(tag(roleLabel(node.turn).slice(3)));
    detail.append(facts);
    if (node.turn) {
      detail.append(
        textBlock('Action', node.turn.action, 'action'),
        textBlock('Observation', node.turn.observation, 'observation'),
      );
    } else {
      detail.append(
        el('p', 'muted', `The state after reset (seed ${group.seed}); every rollout of tree ${node.tree} starts here.`),
      );
    }
    for (const ending of node.endOf) {
      const rollout = group.rollouts[ending]!;
      const box = el('div', 'ending');
      box.append(el('div', 'text-title', `rollout ${rollout.id} ends here`), rolloutTags(rollout));
      if (rollout.error) box.append(textBlock('Error', rollout.error, 'error'));
      detail.append(box);
    }
    // Mark the path from the root to the node in the drawing.
    const onPath = new Set<number>();
    for (let at = index; at >= 0; at = group.nodes[at]!.parent) onPath.add(at);
    document.querySelectorAll('#viewer-body [data-node]').forEach((element) => {
      const at = Number((element as SVGElement).dataset.node);
      element.classList.toggle('on-path', onPath.has(at));
      element.classList.toggle('selected', at === index);
    });
  }

  /** ` · planner (history only)` for a turn of a rollout with several roles; '' otherwise. */
  function roleLabel(turn: NonNullable<RolloutNode['turn']>): string {
    if (!turn.role) return '';
    return ` · ${turn.role}${turn.envStep === false ? ' (history only)' : ''}`;
  }

  function showChain(group: PromptGroupView, index: number): void {
    const rollout = group.rollouts[index]!;
    const detail = byId('node-detail');
    detail.replaceChildren(el('h3', '', `Rollout ${rollout.id}`), rolloutTags(rollout));
    rollout.path.forEach((at) => {
      const node = group.nodes[at]!;
      if (!node.turn) return;
      const turn = el('div', 'turn');
      turn.append(
        el('div', 'turn-label', `turn ${node.depth}${roleLabel(node.turn)} · reward ${fmt(node.turn.reward)}`),
        textBlock(node.turn.role ? `Action (${node.turn.role})` : 'Action', node.turn.action, 'action'),
        textBlock('Observation', node.turn.observation, 'observation'),
      );
      detail.append(turn);
    });
    if (rollout.error) detail.append(textBlock('Error', rollout.error, 'error'));
    if (rollout.path.length === 0) detail.append(el('p', 'muted', 'No turns.'));
    document.querySelectorAll('#viewer-body .rollout-item').forEach((element, at) => {
      element.setAttribute('aria-current', String(at === index));
    });
  }

  function drawTree(group: PromptGroupView, range: readonly [number, number]): SVGElement {
    const SLOT = 46;
    const LEVEL = 74;
    const PAD = 30;
    const width = Math.max(320, PAD * 2 + (group.width - 1) * SLOT);
    const height = PAD * 2 + group.depth * LEVEL + 14;
    const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height }, 'rollout-tree');
    root.setAttribute('aria-label', `rollout trees of group ${group.group}`);
    const offset = (width - (group.width - 1) * SLOT) / 2;
    const px = (node: RolloutNode): number => offset + node.x * SLOT;
    const py = (node: RolloutNode): number => PAD + node.depth * LEVEL;
    const edges = svg('g', {}, 'edges');
    const marks = svg('g', {}, 'nodes');
    group.nodes.forEach((node, index) => {
      if (node.parent < 0) return;
      const parent = group.nodes[node.parent]!;
      const [x0, y0, x1, y1] = [px(parent), py(parent), px(node), py(node)];
      const middle = (y0 + y1) / 2;
      const edge = svg(
        'path',
        {
          d: `M${x0},${y0}C${x0},${middle} ${x1},${middle} ${x1},${y1}`,
          'stroke-width': Math.min(9, 1.2 + 1.6 * (node.through - 1)),
        },
        node.through > 1 ? 'tree-edge shared' : 'tree-edge',
      );
      edge.dataset.node = String(index);
      edges.append(edge);
      if (node.through > 1) {
        const count = svg('text', { x: (x0 + x1) / 2 + 7, y: middle + 4 }, 'edge-count');
        count.textContent = `×${node.through}`;
        edges.append(count);
      }
    });
    group.nodes.forEach((node, index) => {
      const x = px(node);
      const y = py(node);
      const isLeaf = node.children.length === 0 && node.endOf.length > 0;
      let mark: SVGElement;
      if (!node.turn) {
        mark = svg('rect', { x: x - 9, y: y - 9, width: 18, height: 18, rx: 3 }, 'tree-root');
        const label = svg('text', { x, y: y - 15, 'text-anchor': 'middle' }, 'root-label');
        label.textContent = `tree ${node.tree}`;
        marks.append(label);
      } else if (isLeaf) {
        const rewards = node.endOf.map((ending) => group.rollouts[ending]!.reward);
        const reward = rewards.reduce((sum, value) => sum + value, 0) / rewards.length;
        mark = svg('circle', { cx: x, cy: y, r: 10 }, 'tree-node leaf');
        // A style, not the fill attribute: the stylesheet's white fill for nodes would win over an attribute.
        mark.style.fill = rewardColor(reward, range);
        const label = svg('text', { x, y: y + 25, 'text-anchor': 'middle' }, 'leaf-label');
        label.textContent = fmt(reward);
        marks.append(label);
      } else {
        mark = svg('circle', { cx: x, cy: y, r: 7 }, node.endOf.length > 0 ? 'tree-node ends-here' : 'tree-node');
      }
      mark.dataset.node = String(index);
      mark.setAttribute('tabindex', '0');
      mark.setAttribute('role', 'button');
      const title = svg('title');
      const action = node.turn ? node.turn.action.replace(/\s+/g, ' ').trim() : '';
      title.textContent = node.turn
        ? `turn ${node.depth}: ${action.length > 120 ? `${action.slice(0, 117)}…` : action}`
        : `tree ${node.tree}: the state after reset`;
      mark.append(title);
      const select = (): void => showNode(group, index);
      mark.addEventListener('click', select);
      mark.addEventListener('keydown', (event) => {
        if ((event as KeyboardEvent).key === 'Enter' || (event as KeyboardEvent).key === ' ') {
          event.preventDefault();
          select();
        }
      });
      marks.append(mark);
    });
    root.append(edges, marks);
    return root;
  }

  function rewardScale(range: readonly [number, number]): HTMLElement {
    const scale = el('div', 'reward-scale');
    const bar = el('span', 'reward-bar');
    bar.style.background = `linear-gradient(90deg, ${rewardColor(range[0], range)}, ${rewardColor((range[0] + range[1]) / 2, range)}, ${rewardColor(range[1], range)})`;
    scale.append(el('span', 'muted', `leaf reward ${fmt(range[0])}`), bar, el('span', 'muted', fmt(range[1])));
    return scale;
  }

  function renderGroup(run: ReportRollouts, group: PromptGroupView): void {
    const body = byId('viewer-body');
    body.replaceChildren();
    const header = el('div', 'group-header');
    header.append(
      tag(`group ${group.group}`),
      tag(`env seed ${group.seed}`),
      tag(`${group.rollouts.length} rollouts`),
      tag(group.kind === 'tree' ? `${new Set(group.nodes.map((node) => node.tree)).size} trees` : 'chains'),
    );
    body.append(header);
    for (const warning of group.warnings) body.append(el('div', 'warning', warning));
    const layout = el('div', 'viewer-layout');
    const left = el('div', 'viewer-left');
    const detail = el('div', 'node-detail');
    detail.id = 'node-detail';
    if (group.kind === 'tree') {
      left.append(rewardScale(run.rewardRange));
      const scroller = el('div', 'tree-scroll');
      scroller.append(drawTree(group, run.rewardRange));
      left.append(scroller);
      detail.append(el('p', 'muted', 'Click a node to read its action and observation.'));
    } else {
      detail.append(el('p', 'muted', 'Click a rollout to read its turns.'));
    }
    const list = el('div', 'rollout-list');
    group.rollouts.forEach((rollout, index) => {
      const item = el('button', 'rollout-item');
      item.type = 'button';
      const mark = outcomeMark(rollout);
      item.append(
        el('span', `mark ${mark.kind}`, mark.text),
        el('span', 'rollout-id', rollout.id),
        el(
          'span',
          'stats',
          `reward ${fmt(rollout.reward)} · ${Math.max(0, rollout.path.length - (group.kind === 'tree' ? 1 : 0))} turns`,
        ),
      );
      item.addEventListener('click', () => {
        if (group.kind === 'chain') showChain(group, index);
        else showNode(group, rollout.path[rollout.path.length - 1]!);
        document.querySelectorAll('#viewer-body .rollout-item').forEach((element, at) => {
          element.setAttribute('aria-current', String(at === index));
        });
      });
      list.append(item);
    });
    left.append(list);
    layout.append(left, detail);
    body.append(layout);
  }

  function renderViewer(): void {
    const viewer = byId('viewer');
    if (data.rollouts.length === 0) {
      viewer.append(el('p', 'muted', 'No run has a trajectories.jsonl to view.'));
      return;
    }
    const controls = el('div', 'viewer-controls');
    const makeSelect = (id: string, label: string): HTMLSelectElement => {
      const wrap = el('label', 'control');
      const select = el('select');
      select.id = id;
      wrap.append(el('span', '', label), select);
      controls.append(wrap);
      return select;
    };
    const runSelect = makeSelect('viewer-run', 'run');
    const iterationSelect = makeSelect('viewer-iteration', 'iteration');
    const groupSelect = makeSelect('viewer-group', 'prompt group');
    const note = el('span', 'muted viewer-note');
    controls.append(note);
    const body = el('div', 'viewer-body');
    body.id = 'viewer-body';
    viewer.append(controls, body);

    const fill = (select: HTMLSelectElement, labels: string[]): void => {
      select.replaceChildren(
        ...labels.map((label, index) => {
          const option = el('option', '', label);
          option.value = String(index);
          return option;
        }),
      );
    };
    const currentRun = (): ReportRollouts => data.rollouts[Number(runSelect.value)]!;
    const currentIteration = () => currentRun().iterations[Number(iterationSelect.value)];
    const showGroup = (): void => {
      const iteration = currentIteration();
      const group = iteration?.groups[Number(groupSelect.value)];
      if (!iteration || !group) {
        body.replaceChildren(el('p', 'muted', 'No rollouts kept for this iteration.'));
        return;
      }
      renderGroup(currentRun(), group);
    };
    const showIteration = (): void => {
      const iteration = currentIteration();
      fill(
        groupSelect,
        (iteration?.groups ?? []).map(
          (group) => `group ${group.group} (seed ${group.seed}, ${group.rollouts.length} rollouts)`,
        ),
      );
      note.textContent =
        iteration && iteration.hiddenGroups > 0 ? `${iteration.hiddenGroups} more groups not kept` : '';
      showGroup();
    };
    const showRun = (): void => {
      fill(
        iterationSelect,
        currentRun().iterations.map((iteration) => `iteration ${iteration.iteration}`),
      );
      iterationSelect.value = String(Math.max(0, currentRun().iterations.length - 1));
      showIteration();
    };
    fill(
      runSelect,
      data.rollouts.map((rollouts) => {
        const run = data.runs[rollouts.run]!;
        return `${run.name} (${run.algorithm}, seed ${run.seed})`;
      }),
    );
    runSelect.addEventListener('change', showRun);
    iterationSelect.addEventListener('change', showIteration);
    groupSelect.addEventListener('change', showGroup);
    showRun();
  }

  renderLegend();
  renderSummary();
  renderCharts();
  renderCalibrations();
  renderViewer();
  document.body.dataset.ready = 'true';
}
