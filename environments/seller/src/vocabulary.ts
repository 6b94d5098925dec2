/**
 * The shared vocabulary of products, personas, the simulator and the text readers: needs a product serves
 * and a buyer has, objection kinds, and deal-breaker tags — each with the phrase the simulated buyer says
 * and the keywords by which an utterance or a reply is recognised as being about it. The simulated
 * executor's texts and the data's selling points use these keywords, so the seller-v1 classifier reads the
 * executor's own sentences back as the meta-action that wrote them (a test checks it on every product).
 */

export const NEEDS = [
  'portability',
  'battery',
  'durability',
  'ease-of-use',
  'performance',
  'comfort',
  'design',
  'health',
  'safety',
  'eco',
  'value',
  'quiet',
  'capacity',
  'connectivity',
] as const;
export type Need = (typeof NEEDS)[number];

/** How a buyer names a need ("What matters most to me is …"). */
export const NEED_PHRASES: Readonly<Record<Need, string>> = {
  portability: 'something light I can carry around',
  battery: 'a long battery life',
  durability: 'something that lasts for years',
  'ease-of-use': 'something simple to use',
  performance: 'real performance',
  comfort: 'comfort',
  design: 'a good look',
  health: 'my health',
  safety: 'safety',
  eco: 'being eco-friendly',
  value: 'good value for money',
  quiet: 'that it is quiet',
  capacity: 'plenty of space',
  connectivity: 'that it connects to my phone',
};

/** Keywords of a need in a seller's utterance (a pitch) or a buyer's reply (a revealed need). */
export const NEED_KEYWORDS: Readonly<Record<Need, RegExp>> = {
  portability: /\b(light(weight)?|portable|carry|compact|pocket|weighs)\b/i,
  battery: /\b(battery|batteries|charge|charging|runtime)\b/i,
  durability: /\b(durable|durability|lasts?|lasting|sturdy|robust|tough|rugged)\b/i,
  'ease-of-use': /\b(easy|easily|simple|intuitive|one button|no setup)\b/i,
  performance: /\b(fast|powerful|power|performance)\b/i,
  comfort: /\b(comfort|comfortable|soft|ergonomic|cushion(ed|ing)?)\b/i,
  design: /\b(stylish|style|design|looks?|beautiful|elegant|good[- ]looking)\b/i,
  health: /\b(health|healthy|wellbeing|posture|fitness)\b/i,
  safety: /\b(safe|safety|secure|protects?|protection)\b/i,
  eco: /\b(eco|eco-friendly|recycled|sustainable|environment|planet)\b/i,
  value: /\b(value|save money|saves you|pays for itself|cheaper)\b/i,
  quiet: /\b(quiet|quietly|silent|whisper)\b/i,
  capacity: /\b(space|capacity|storage|holds|roomy|litres?)\b/i,
  connectivity: /\b(app|bluetooth|wi-?fi|connects?|sync)\b/i,
};

export const OBJECTION_KINDS = [
  'price',
  'trust',
  'need',
  'quality',
  'complexity',
  'size',
  'maintenance',
  'compatibility',
  'noise',
  'runtime',
] as const;
export type ObjectionKind = (typeof OBJECTION_KINDS)[number];

/** How a buyer names the worry when the seller fails to answer it ("… my concern about the price"). */
export const OBJECTION_TOPICS: Readonly<Record<ObjectionKind, string>> = {
  price: 'the price',
  trust: 'whether I can trust you',
  need: 'whether I need it at all',
  quality: 'the quality',
  complexity: 'how complicated it is',
  size: 'the size and weight',
  maintenance: 'the upkeep',
  compatibility: 'whether it works with my things',
  noise: 'the noise',
  runtime: 'the battery',
};

/** Keywords by which an utterance addresses an objection, and a reply voices one. */
export const OBJECTION_KEYWORDS: Readonly<Record<ObjectionKind, RegExp>> = {
  price: /\b(price|cost|costs|expensive|afford|budget|instal?lments?|payment plan|worth|spend)\b/i,
  trust: /\b(scam|trust|warranty|guarantee|refund|receipt|registered|shop|store)\b/i,
  need: /\b(need|really use|every day|daily|difference|life easier)\b/i,
  quality: /\b(break|breaks|quality|tested|build|well made)\b/i,
  complexity: /\b(complicated|complex|learn|setup|set up|instructions|confusing)\b/i,
  size: /\b(bulky|heavy|size|weight|folds?|compact|too big)\b/i,
  maintenance: /\b(maintenance|upkeep|clean|cleaning|refills?|repairs?|spare parts?)\b/i,
  compatibility: /\b(compatible|compatibility|works with|work with|iphone|android)\b/i,
  noise: /\b(loud|noise|noisy|decibels?|db)\b/i,
  runtime: /\b(battery|charge|hours|runtime)\b/i,
};

/**
 * The weakness kind that clashes with a buyer's need: a product weak on `size` raises a spontaneous
 * objection with a buyer who needs `portability`.
 */
export const OBJECTION_CLASHES: Readonly<Partial<Record<ObjectionKind, readonly Need[]>>> = {
  quality: ['durability'],
  complexity: ['ease-of-use'],
  size: ['portability'],
  maintenance: ['value', 'ease-of-use'],
  compatibility: ['connectivity'],
  noise: ['quiet'],
  runtime: ['battery'],
};

export const DEAL_BREAKER_TAGS = [
  'subscription',
  'needs-smartphone',
  'leather',
  'corded',
  'camera',
  'refills',
  'plastic-body',
  'assembly',
] as const;
export type DealBreakerTag = (typeof DEAL_BREAKER_TAGS)[number];

/** "I would never buy anything that …" */
export const DEAL_BREAKER_PHRASES: Readonly<Record<DealBreakerTag, string>> = {
  subscription: 'needs a monthly subscription',
  'needs-smartphone': 'only works with a smartphone app',
  leather: 'is made with animal leather',
  corded: 'has to be plugged into the wall',
  camera: 'has a camera watching me',
  refills: 'needs special refills',
  'plastic-body': 'is mostly plastic',
  assembly: 'I have to assemble myself',
};

export const DEAL_BREAKER_KEYWORDS: Readonly<Record<DealBreakerTag, RegExp>> = {
  subscription: /\b(subscription|subscribe|monthly fee|membership)\b/i,
  'needs-smartphone': /\b(smartphone|app|without a phone)\b/i,
  leather: /\b(leather|vegan|animal)\b/i,
  corded: /\b(cord|cords|corded|cordless|plug|plugged|cable|wireless)\b/i,
  camera: /\b(camera|privacy|records?|recording)\b/i,
  refills: /\b(refills?|cartridges?|capsules?)\b/i,
  'plastic-body': /\b(plastic|metal|steel|aluminium|aluminum|bamboo|wood)\b/i,
  assembly: /\b(assembl\w*|put together|ready to use|fully built)\b/i,
};

export const TEMPERAMENTS = [
  'friendly',
  'skeptical',
  'impatient',
  'analytical',
  'shy',
  'emotional',
  'thrifty',
] as const;
export type Temperament = (typeof TEMPERAMENTS)[number];

/** Dialogue phases, the env's anchor (ALGORITHMS.md §5b: the abstract location of a state). */
export const PHASES = ['opening', 'discovery', 'objections', 'closing'] as const;
export type Phase = (typeof PHASES)[number];
