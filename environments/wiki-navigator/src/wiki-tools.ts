import type { ToolSpec } from '@turngym/spec';

/**
 * One argument, text or a number. The text syntax cannot tell `CLICK(3)` from `CLICK("3")`, and a model calling
 * functions sends the link the page numbers, the line or the year as a JSON number: `{"link": 3}`, refused as
 * "must be string", cost the format penalty where `CLICK(3)` followed the link. `integer` where only a whole number
 * means something (a link, a line), so `{"link": 2.5}` is still refused with feedback.
 */
const text = (
  name: string,
  description: string,
  options: { number?: 'number' | 'integer'; maxLength?: number } = {},
): ToolSpec['parameters'] => ({
  type: 'object',
  additionalProperties: false,
  required: [name],
  properties: {
    [name]: {
      type: ['string', options.number ?? 'number'],
      description,
      ...(options.maxLength ? { maxLength: options.maxLength } : {}),
    },
  },
});

const none: ToolSpec['parameters'] = { type: 'object', additionalProperties: false, properties: {} };

export const SEARCH_TOOL: ToolSpec = {
  name: 'SEARCH',
  description: 'Full-text search (BM25) over the encyclopedia. Opens a results page whose entries are links.',
  parameters: text('query', 'Search words, e.g. "Glass Orchard novel".'),
};
export const NAVIGATE_TOOL: ToolSpec = {
  name: 'NAVIGATE',
  description: 'Open the article with this title (case-insensitive; redirects are followed).',
  parameters: text('title', 'An article title, e.g. "Morrow Bay".'),
};
export const CLICK_TOOL: ToolSpec = {
  name: 'CLICK',
  description:
    'Follow a link of the current page, written [#3 Morrow Bay]: by its number ("3") or its label or title ("Morrow Bay").',
  parameters: text('link', 'A link number (3) or label.', { number: 'integer' }),
};
export const FIND_TOOL: ToolSpec = {
  name: 'FIND',
  description: 'Move the window to the next line of the current page that contains this text (case-insensitive).',
  parameters: text('text', 'Text to look for (at most 200 characters).'),
};
export const SCROLL_TOOL: ToolSpec = {
  name: 'SCROLL',
  description: 'Move the window over the current page: "down", "up", "top", "bottom", or a line number to show from.',
  parameters: text('to', '"down", "up", "top", "bottom" or a line number.', { number: 'integer' }),
};
export const SAVE_LINE_IDS_TOOL: ToolSpec = {
  name: 'SAVE_LINE_IDS',
  description: 'Copy lines of the current page into your notes, which every observation shows: e.g. "4-6, 12".',
  parameters: text('ranges', 'Line numbers and ranges, comma-separated: "17-19, 108".', { number: 'integer' }),
};
export const BACK_TOOL: ToolSpec = {
  name: 'BACK',
  description: 'Return to the previous page (and where you were on it).',
  parameters: none,
};
export const SUBMIT_TOOL: ToolSpec = {
  name: 'SUBMIT',
  description: 'Give the final answer (a short span: a name, a year, a number) and end the episode.',
  parameters: text('answer', 'The answer.', { maxLength: 500 }),
};

/** Question answering: search, read, take notes, answer. */
export const QA_TOOLS: readonly ToolSpec[] = [
  SEARCH_TOOL,
  NAVIGATE_TOOL,
  CLICK_TOOL,
  FIND_TOOL,
  SCROLL_TOOL,
  SAVE_LINE_IDS_TOOL,
  BACK_TOOL,
  SUBMIT_TOOL,
];
/** Compact pages are whole and short: no window to move, no lines to note (the context keeps every page). */
export const COMPACT_CLICK_TOOL: ToolSpec = {
  name: 'CLICK',
  description: 'Follow a link of the current page, written [Morrow Bay], by its label ("Morrow Bay").',
  parameters: text('link', 'A link label.', { number: 'integer' }),
};
/** `turngym/wiki-qa-compact-v1`: the tools that act on a compact page. */
export const COMPACT_QA_TOOLS: readonly ToolSpec[] = [
  SEARCH_TOOL,
  NAVIGATE_TOOL,
  COMPACT_CLICK_TOOL,
  BACK_TOOL,
  SUBMIT_TOOL,
];
/** Races are won by clicking: no search, no typing a title, nothing to submit. */
export const RACE_TOOLS: readonly ToolSpec[] = [CLICK_TOOL, FIND_TOOL, SCROLL_TOOL, BACK_TOOL];

export const QA_EXAMPLES: readonly string[] = [
  'SEARCH(Glass Orchard)',
  'NAVIGATE(Main Page)',
  'CLICK(1)',
  'FIND(Born)',
  'SCROLL(down)',
  'SAVE_LINE_IDS(2-4)',
  'BACK',
  'SUBMIT(1843)',
];
/** The compact variant's expert follows links by the label it reads (a name to copy, not a number). */
export const COMPACT_QA_EXAMPLES: readonly string[] = [
  'NAVIGATE(The Glass Orchard)',
  'CLICK(Morrow Bay)',
  'SEARCH(Glass Orchard)',
  'BACK',
  'SUBMIT(1843)',
];
export const RACE_EXAMPLES: readonly string[] = [
  'CLICK(1)',
  'CLICK(2)',
  'FIND(Notable people)',
  'SCROLL(down)',
  'BACK',
];

export function qaInstructions(budget: number, windowLines: number, formatPenalty: number): string {
  return [
    'You answer questions by reading an offline encyclopedia in a web browser.',
    'Call exactly one tool per turn, written NAME(argument), e.g. SEARCH(Glass Orchard) or CLICK(3); JSON arguments and function calls work too.',
    'Tools:',
    '- SEARCH(query): full-text search; the results page lists articles as links.',
    '- NAVIGATE(title): open the article with that title.',
    '- CLICK(link): follow a link of the current page by number or label. Links look like [#3 Morrow Bay].',
    '- FIND(text): jump to the next line of the page containing the text.',
    `- SCROLL(down | up | top | bottom | line): move the ${windowLines}-line window over the page; lines are numbered L1, L2, ….`,
    '- SAVE_LINE_IDS(ranges): copy lines into your notes, e.g. SAVE_LINE_IDS(4-6, 12); notes stay visible.',
    '- BACK: return to the previous page.',
    '- SUBMIT(answer): give the final answer, a short span (a name, a year, a number), and end the episode.',
    `You have ${budget} tool calls. The answer is scored by exact match after SQuAD normalisation.`,
    `A malformed call, or running out of calls without an answer, costs ${formatPenalty}.`,
  ].join('\n');
}

export function raceInstructions(budget: number, windowLines: number, formatPenalty: number): string {
  return [
    'You race through an offline encyclopedia in a web browser: reach the target article from the start article by clicking links.',
    'Call exactly one tool per turn, written NAME(argument), e.g. CLICK(3) or CLICK(Morrow Bay).',
    'Tools:',
    '- CLICK(link): follow a link of the current page by number or label. Links look like [#3 Morrow Bay].',
    '- FIND(text): jump to the next line of the page containing the text.',
    `- SCROLL(down | up | top | bottom | line): move the ${windowLines}-line window over the page.`,
    '- BACK: return to the previous page.',
    `You win (reward 1) when the target article opens. You have ${budget} tool calls; a malformed call costs ${formatPenalty}.`,
  ].join('\n');
}

/** The system prompt of `turngym/wiki-qa-compact-v1`. */
export function compactQaInstructions(budget: number, formatPenalty: number): string {
  return [
    'You answer questions by reading an offline encyclopedia.',
    'Call exactly one tool per turn, written NAME(argument), e.g. NAVIGATE(The Glass Orchard) or CLICK(Morrow Bay).',
    'A page shows "# Title" and one fact per line, "Field: value"; links look like [Morrow Bay].',
    'Tools:',
    '- NAVIGATE(title): open the article with that title.',
    '- CLICK(link): follow a link of the current page by its label.',
    '- SEARCH(query): full-text search; the results are article titles, as links.',
    '- BACK: return to the previous page.',
    '- SUBMIT(answer): give the final answer, a short span (a name, a year, a number), and end the episode.',
    `You have ${budget} tool calls. The answer is scored by exact match after SQuAD normalisation.`,
    `A malformed call, or running out of calls without an answer, costs ${formatPenalty}.`,
  ].join('\n');
}
