/**
 * How questions speak about an infobox field. The task generator works on any corpus with infoboxes; a
 * corpus may supply phrases for its fields (the synthetic one does), and unknown fields fall back to the
 * field name ("What is the elevation of …?").
 */
export interface FieldPhrase {
  /** The noun in a chain: "the {noun} of X" (e.g. "birthplace"). */
  readonly noun: string;
  /** A direct question, `{x}` standing for the subject: "In what year was {x} born?". */
  readonly question?: string;
  /** For comparisons: which value wins and how to ask ("was born earlier"). */
  readonly compare?: { readonly prefer: 'smaller' | 'larger'; readonly text: string };
  /** False for fields that make poor questions (e.g. `Type`). */
  readonly ask?: boolean;
}

export type FieldPhrases = Readonly<Record<string, FieldPhrase>>;

const YEARLIKE = /\b(year|born|died|founded|established|date|released|published|completed|opened)\b/i;

/**
 * Real infoboxes name some facts by a participle (`founded`, `released`): "the founded of X" reads badly, so
 * these become a noun and a "When was X …?" question.
 */
const PARTICIPLES: Readonly<Record<string, string>> = {
  born: 'birth date',
  died: 'death date',
  founded: 'founding date',
  established: 'establishment date',
  released: 'release date',
  published: 'publication date',
  completed: 'completion date',
  opened: 'opening date',
};

/** A trailing unit in a parameter name (`elevation_m`, `area_km2`) is written as real prose does: "elevation (m)". */
const UNIT = /\s(m|km|km2|ft|mi|sq mi|kg|lb)$/i;

/** The phrase for `field`: the corpus's own, else one derived from the field name. */
export function phraseFor(field: string, phrases: FieldPhrases | undefined): FieldPhrase {
  const known = phrases?.[field];
  if (known) return known;
  const lower = field.toLowerCase().trim();
  const participle = PARTICIPLES[lower];
  const noun = participle ?? lower.replace(UNIT, (_, unit: string) => ` (${unit})`);
  return {
    noun,
    ...(participle ? { question: lower === 'died' ? 'When did {x} die?' : `When was {x} ${lower}?` } : {}),
    compare: YEARLIKE.test(field)
      ? { prefer: 'smaller', text: `has the earlier ${noun}` }
      : { prefer: 'larger', text: `has the larger ${noun}` },
  };
}
