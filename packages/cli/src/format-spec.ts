import type { EnvDocs, EnvSpec, JsonSchema, Space } from '@turngym/spec';
import { compactJson } from './compact-json';
import { formatTable } from './format-table';

/** Gymnasium's documentation sections, in Gymnasium's order, with their headings. */
const SECTIONS: readonly [keyof EnvDocs, string][] = [
  ['description', 'Description'],
  ['actionSpace', 'Action Space'],
  ['observationSpace', 'Observation Space'],
  ['rewards', 'Rewards'],
  ['startingState', 'Starting State'],
  ['episodeEnd', 'Episode End'],
  ['arguments', 'Arguments'],
  ['versionHistory', 'Version History'],
];

function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((line) => (line.length > 0 ? `${by}${line}` : line))
    .join('\n');
}

/** One line naming a space: `text (max 2000 chars)`, `discrete: 0 left, 1 right`, `tools: LOOKUP, SUBMIT`. */
export function describeSpace(space: Space): string {
  switch (space.type) {
    case 'text':
      return `text${space.maxLength ? ` (at most ${space.maxLength} characters)` : ''}`;
    case 'discrete':
      return `discrete, ${space.n} options: ${space.labels.map((label, index) => `${index} ${label}`).join(', ')}`;
    case 'tools':
      return `tools: ${space.tools.map((tool) => tool.name).join(', ')}`;
  }
}

/** One row per option: name, type, default, allowed values, its doc. */
function formatOptions(schema: unknown): string {
  const properties = ((schema as JsonSchema | undefined)?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(((schema as JsonSchema | undefined)?.required ?? []) as string[]);
  const rows = Object.entries(properties).map(([name, property]) => {
    const type = Array.isArray(property.type) ? property.type.join('|') : String(property.type ?? 'any');
    const allowed: string[] = [];
    if (Array.isArray(property.enum))
      allowed.push(`one of ${property.enum.map((value) => JSON.stringify(value)).join(', ')}`);
    if (property.minimum !== undefined || property.maximum !== undefined)
      allowed.push(`${String(property.minimum ?? '…')}–${String(property.maximum ?? '…')}`);
    if (property.minLength !== undefined || property.maxLength !== undefined)
      allowed.push(`length ${String(property.minLength ?? 0)}–${String(property.maxLength ?? '…')}`);
    const doc = property['x-doc'] ?? property.description;
    return [
      name,
      type,
      property.default !== undefined
        ? `default ${JSON.stringify(property.default)}`
        : required.has(name)
          ? '(required)'
          : '(optional)',
      allowed.join(', '),
      typeof doc === 'string' ? doc : '',
    ];
  });
  if (rows.length === 0) return 'none';
  return formatTable(['NAME', 'TYPE', 'DEFAULT', 'ALLOWED', ''], rows);
}

export interface InfoView {
  spec: EnvSpec;
  agents: readonly string[];
  optionsSchema: unknown;
  packageName?: string | undefined;
  packageVersion?: string | undefined;
}

/** What `turngym info` prints: the header facts, the documented sections, the tools with their schemas, the options. */
export function formatEnvInfo(view: InfoView): string {
  const { spec } = view;
  const facts: [string, string][] = [
    ['package', view.packageName ? `${view.packageName} ${view.packageVersion ?? ''}`.trim() : '(not recorded)'],
    ['max turns', String(spec.maxTurns)],
    ['reward range', `[${spec.rewardRange[0]}, ${spec.rewardRange[1]}]`],
    ['observation', describeSpace(spec.observationSpace)],
    ['action', describeSpace(spec.actionSpace)],
    ['agents', [...view.agents, 'chat-model specs (openai:<model>, …)'].join(', ')],
  ];
  if (spec.nondeterministic) facts.push(['deterministic', 'no: the same seed may not reproduce an episode']);
  const width = Math.max(...facts.map(([label]) => label.length));
  const parts: string[] = [
    `${spec.id}\n${indent(spec.summary)}`,
    facts.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n'),
  ];

  if (spec.docs) {
    for (const [key, heading] of SECTIONS) {
      const text = spec.docs[key];
      if (text) parts.push(`${heading}\n${indent(text)}`);
    }
  } else {
    parts.push('(this env documents no sections: spec.docs is missing)');
  }

  const tools = spec.tools ?? (spec.actionSpace.type === 'tools' ? spec.actionSpace.tools : []);
  if (tools.length > 0) {
    parts.push(
      `Tools\n${tools
        .map(
          (tool) =>
            `${indent(`${tool.name} — ${tool.description}`)}\n${indent(compactJson(tool.parameters, 96), '    ')}`,
        )
        .join('\n\n')}`,
    );
  }
  const examples = spec.actionSpace.type === 'discrete' ? [] : (spec.actionSpace.examples ?? []);
  if (examples.length > 0) parts.push(`Example actions\n${examples.map((example) => indent(example)).join('\n')}`);
  parts.push(`Options (--options '<json>')\n${indent(formatOptions(view.optionsSchema))}`);
  return parts.join('\n\n');
}
