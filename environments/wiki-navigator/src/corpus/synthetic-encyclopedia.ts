import { SeededRng } from '@turngym/core';
import type { Article, ArticleSection, InfoboxField } from './article';
import { Corpus } from './corpus';
import type { FieldPhrases } from './field-phrases';

/**
 * A seeded encyclopedia of fictional countries, cities, organisations, people and works. Every fact is drawn
 * once into an entity record, then written into both the infobox and the prose, so the two never disagree;
 * relations are typed links (a person's `Birthplace` is a city article, a novel's `Author` a person article),
 * and back-link sections ("Notable people", "Works") make the link graph dense enough for navigation races.
 * Years are kept consistent (people are born after their city was founded, works appear in their creator's
 * lifetime, founders were adults when they founded).
 */
export interface SyntheticEncyclopediaOptions {
  readonly seed: number;
  /** Total articles (at least 50). */
  readonly articles: number;
}

type Kind = 'country' | 'city' | 'organisation' | 'person' | 'work';

interface Entity {
  readonly id: number;
  readonly title: string;
  readonly kind: Kind;
  /** organisation: company | university | publisher | studio | label | museum | orchestra; work: novel | film | album | painting. */
  readonly subtype: string;
  facts: Record<string, number | string>;
  refs: Record<string, number>;
}

const GIVEN_NAMES = [
  'Aldric',
  'Brenna',
  'Cassel',
  'Dorin',
  'Elowen',
  'Fenna',
  'Galen',
  'Hestia',
  'Ivo',
  'Jorah',
  'Kaela',
  'Lorcan',
  'Maren',
  'Nyle',
  'Odile',
  'Perrin',
  'Quilla',
  'Rowan',
  'Sable',
  'Tamsin',
  'Ulric',
  'Vesna',
  'Wren',
  'Xanthe',
  'Yorick',
  'Zelda',
  'Anselm',
  'Briony',
  'Corwin',
  'Delphine',
  'Emeric',
  'Faye',
  'Gideon',
  'Halcyon',
  'Isolde',
  'Jasper',
  'Katrin',
  'Leander',
  'Mirela',
  'Niamh',
  'Osric',
  'Pella',
  'Ronan',
  'Solveig',
  'Tobiah',
  'Una',
  'Valen',
  'Wilhelmina',
  'Ysolde',
  'Zoran',
  'Arden',
  'Bastian',
  'Celeste',
  'Dunstan',
  'Elspeth',
  'Florian',
  'Greta',
  'Hollis',
  'Ines',
  'Juno',
];
const ONSETS = [
  'b',
  'br',
  'c',
  'd',
  'dr',
  'f',
  'g',
  'gr',
  'h',
  'k',
  'kr',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  'st',
  't',
  'th',
  'tr',
  'v',
  'w',
  'z',
  'ch',
  'sh',
  '',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ae', 'ei', 'ou', 'ia', 'y'];
const CODAS = ['', '', 'n', 'r', 'l', 's', 'th', 'm', 'nd', 'rk', 'sk', 'll', 'v', 'x'];
const CITY_SUFFIXES = [
  '',
  'ford',
  'haven',
  'mere',
  'bury',
  'wick',
  'stad',
  'polis',
  'grad',
  'port',
  'vale',
  'holm',
  'by',
];
const COUNTRY_SUFFIXES = ['ia', 'land', 'ora', 'istan', 'ar', 'ene', 'mark', 'ovia'];
const ADJECTIVES = [
  'Glass',
  'Silent',
  'Crimson',
  'Hollow',
  'Iron',
  'Distant',
  'Golden',
  'Broken',
  'Quiet',
  'Burning',
  'Pale',
  'Northern',
  'Hidden',
  'Salt',
  'Winter',
  'Copper',
  'Paper',
  'Velvet',
  'Last',
  'Seventh',
  'Drowned',
  'Bright',
  'Lonely',
  'Amber',
];
const NOUNS = [
  'Orchard',
  'Harbour',
  'Lantern',
  'Cartographer',
  'Garden',
  'Bridge',
  'Tide',
  'Clockmaker',
  'Archive',
  'Meadow',
  'Lighthouse',
  'Sparrow',
  'Citadel',
  'Ferry',
  'Mirror',
  'Furnace',
  'Observatory',
  'Orchestra',
  'Vineyard',
  'Compass',
  'Atlas',
  'Tower',
  'Winter',
  'River',
  'Theorem',
  'Cathedral',
  'Signal',
  'Quarry',
];
const CURRENCY_NOUNS = ['crown', 'mark', 'florin', 'dinar', 'thaler', 'real', 'lira', 'shilling'];
const INDUSTRIES = [
  'shipping',
  'mining',
  'textiles',
  'instruments',
  'railways',
  'glassmaking',
  'brewing',
  'optics',
  'chemicals',
  'banking',
];
const COMPANY_WORDS: Record<string, string> = {
  shipping: 'Shipping Company',
  mining: 'Mining Company',
  textiles: 'Textile Mills',
  instruments: 'Instrument Works',
  railways: 'Railway Company',
  glassmaking: 'Glassworks',
  brewing: 'Brewery',
  optics: 'Optical Works',
  chemicals: 'Chemical Company',
  banking: 'Bank',
};
const OCCUPATION_WORK: Record<string, string> = {
  novelist: 'novel',
  'film director': 'film',
  musician: 'album',
  painter: 'painting',
};
const OTHER_OCCUPATIONS = [
  'engineer',
  'architect',
  'chemist',
  'merchant',
  'politician',
  'astronomer',
  'physician',
  'mathematician',
];
const WORK_FIELDS: Record<
  string,
  { creator: string; year: string; publisher: string; publisherKind: string; verb: string }
> = {
  novel: { creator: 'Author', year: 'Published', publisher: 'Publisher', publisherKind: 'publisher', verb: 'written' },
  film: { creator: 'Director', year: 'Released', publisher: 'Studio', publisherKind: 'studio', verb: 'directed' },
  album: { creator: 'Artist', year: 'Released', publisher: 'Label', publisherKind: 'label', verb: 'recorded' },
  painting: { creator: 'Artist', year: 'Completed', publisher: 'Museum', publisherKind: 'museum', verb: 'painted' },
};
const ORGANISATION_KINDS = [
  'company',
  'company',
  'company',
  'university',
  'publisher',
  'studio',
  'label',
  'museum',
  'orchestra',
];
const PRESENT_YEAR = 2024;

/** How the synthetic corpus's fields read in questions. */
export const SYNTHETIC_PHRASES: FieldPhrases = {
  Born: {
    noun: 'birth year',
    question: 'In what year was {x} born?',
    compare: { prefer: 'smaller', text: 'was born earlier' },
  },
  Died: {
    noun: 'year of death',
    question: 'In what year did {x} die?',
    compare: { prefer: 'smaller', text: 'died earlier' },
  },
  Birthplace: { noun: 'birthplace', question: 'In which city was {x} born?' },
  Occupation: { noun: 'occupation', question: 'What was the occupation of {x}?' },
  Employer: { noun: 'employer', question: 'Which organisation employed {x}?' },
  Spouse: { noun: 'spouse', question: 'Who was the spouse of {x}?' },
  'Notable work': { noun: 'best-known work', question: 'What is the best-known work of {x}?' },
  Country: { noun: 'country', question: 'In which country is {x}?' },
  Population: {
    noun: 'population',
    question: 'What is the population of {x}?',
    compare: { prefer: 'larger', text: 'has the larger population' },
  },
  Founded: {
    noun: 'founding year',
    question: 'In what year was {x} founded?',
    compare: { prefer: 'smaller', text: 'was founded earlier' },
  },
  Elevation: {
    noun: 'elevation',
    question: 'What is the elevation of {x}?',
    compare: { prefer: 'larger', text: 'lies higher' },
  },
  Capital: { noun: 'capital', question: 'What is the capital of {x}?' },
  Currency: { noun: 'currency', question: 'What is the currency of {x}?' },
  'Official language': { noun: 'official language', question: 'What is the official language of {x}?' },
  Type: { noun: 'type', ask: false },
  Industry: { noun: 'industry', question: 'In which industry does {x} work?' },
  Founder: { noun: 'founder', question: 'Who founded {x}?' },
  Headquarters: { noun: 'headquarters', question: 'In which city is {x} headquartered?' },
  Employees: {
    noun: 'number of employees',
    question: 'How many employees does {x} have?',
    compare: { prefer: 'larger', text: 'has more employees' },
  },
  Author: { noun: 'author', question: 'Who wrote {x}?' },
  Director: { noun: 'director', question: 'Who directed {x}?' },
  Artist: { noun: 'artist', question: 'Who is the artist of {x}?' },
  Published: {
    noun: 'publication year',
    question: 'In what year was {x} published?',
    compare: { prefer: 'smaller', text: 'was published earlier' },
  },
  Released: {
    noun: 'release year',
    question: 'In what year was {x} released?',
    compare: { prefer: 'smaller', text: 'was released earlier' },
  },
  Completed: {
    noun: 'year of completion',
    question: 'In what year was {x} completed?',
    compare: { prefer: 'smaller', text: 'was completed earlier' },
  },
  Publisher: { noun: 'publisher', question: 'Which company published {x}?' },
  Studio: { noun: 'studio', question: 'Which studio produced {x}?' },
  Label: { noun: 'record label', question: 'On which label was {x} released?' },
  Museum: { noun: 'museum', question: 'Which museum holds {x}?' },
  Setting: { noun: 'setting', question: 'In which city is {x} set?' },
};

const link = (entity: Entity): string => `[[${entity.title}]]`;
const plural = (noun: string): string =>
  /[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : /(s|x|ch|sh)$/.test(noun) ? `${noun}es` : `${noun}s`;
const thousands = (n: number): string => n.toLocaleString('en-US');

class Generator {
  private readonly rng: SeededRng;
  private readonly titles = new Set<string>();
  readonly entities: Entity[] = [];

  constructor(seed: number) {
    this.rng = new SeededRng(seed);
  }

  word(minSyllables: number, maxSyllables: number): string {
    const count = this.rng.int(minSyllables, maxSyllables);
    let text = '';
    for (let i = 0; i < count; i++)
      text += this.rng.pick(ONSETS) + this.rng.pick(VOWELS) + (i === count - 1 ? this.rng.pick(CODAS) : '');
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  /** A title not used yet: `make` is retried, then disambiguated with a numeral (never repeats a title). */
  unique(make: () => string): string {
    for (let attempt = 0; attempt < 20; attempt++) {
      const title = make();
      if (title.length >= 3 && !this.titles.has(title)) {
        this.titles.add(title);
        return title;
      }
    }
    const base = make();
    for (let n = 2; ; n++) {
      const title = `${base} ${['II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX'][n - 2] ?? n}`;
      if (!this.titles.has(title)) {
        this.titles.add(title);
        return title;
      }
    }
  }

  add(kind: Kind, subtype: string, title: string): Entity {
    const entity: Entity = { id: this.entities.length, title, kind, subtype, facts: {}, refs: {} };
    this.entities.push(entity);
    return entity;
  }

  pick<T>(items: readonly T[]): T {
    return this.rng.pick(items);
  }

  int(min: number, max: number): number {
    return this.rng.int(min, max);
  }

  chance(probability: number): boolean {
    return this.rng.bool(probability);
  }

  /** A title that is guaranteed not to be an article: a red link. */
  missingTitle(): string {
    for (;;) {
      const title = `${this.word(2, 3)} ${this.pick(NOUNS)} Society`;
      if (!this.titles.has(title)) return title;
    }
  }
}

/** Generates the encyclopedia as articles (deterministic in `seed`). */
export function generateSyntheticArticles(options: SyntheticEncyclopediaOptions): Article[] {
  const total = Math.max(50, Math.floor(options.articles));
  const g = new Generator(options.seed);
  const countryCount = Math.max(3, Math.round(total * 0.02));
  const cityCount = Math.max(8, Math.round(total * 0.18));
  const organisationCount = Math.max(8, Math.round(total * 0.15));
  const personCount = Math.max(15, Math.round(total * 0.4));
  const workCount = Math.max(5, total - countryCount - cityCount - organisationCount - personCount);

  const countries = Array.from({ length: countryCount }, () => {
    const stem = g.word(1, 2);
    const country = g.add(
      'country',
      'country',
      g.unique(() => `${stem}${g.pick(COUNTRY_SUFFIXES)}`),
    );
    country.facts.Founded = g.int(800, 1900);
    country.facts.Population = g.int(400, 90000) * 1000;
    country.facts.Currency = `${stem.toLowerCase().replace(/[aeiouy]+$/, '')}ian ${g.pick(CURRENCY_NOUNS)}`;
    country.facts['Official language'] = `${stem.replace(/[aeiouy]+$/, '')}ish`;
    return country;
  });

  const cities = Array.from({ length: cityCount }, () => {
    const city = g.add(
      'city',
      'city',
      g.unique(() => `${g.word(1, 2)}${g.pick(CITY_SUFFIXES)}`),
    );
    const country = g.pick(countries);
    city.refs.Country = country.id;
    city.facts.Founded = g.int(Math.max(600, (country.facts.Founded as number) - 300), 1750);
    city.facts.Population = g.int(2, 3000) * 1000 + g.int(0, 999);
    city.facts.Elevation = g.int(0, 2400);
    return city;
  });
  for (const country of countries) {
    const own = cities.filter((city) => city.refs.Country === country.id);
    const capital = own.length > 0 ? g.pick(own) : g.pick(cities);
    capital.refs.Country = country.id; // a capital lies in its country, even if it was drawn elsewhere
    country.refs.Capital = capital.id;
  }

  const organisations = Array.from({ length: organisationCount }, () => {
    const kind = g.pick(ORGANISATION_KINDS);
    const city = g.pick(cities);
    const industry = g.pick(INDUSTRIES);
    const title = g.unique(() => {
      switch (kind) {
        case 'university':
          return g.chance(0.5)
            ? `University of ${city.title}`
            : `${city.title} Institute of ${g.pick(['Technology', 'Arts', 'Sciences'])}`;
        case 'publisher':
          return g.chance(0.5) ? `${g.word(2, 2)} & ${g.word(2, 2)}` : `${g.word(2, 3)} Press`;
        case 'studio':
          return `${g.word(2, 3)} ${g.pick(['Pictures', 'Films', 'Studios'])}`;
        case 'label':
          return `${g.word(2, 3)} Records`;
        case 'museum':
          return `${city.title} ${g.pick(['Museum of Art', 'Gallery', 'National Museum'])}`;
        case 'orchestra':
          return `${city.title} ${g.pick(['Philharmonic', 'Symphony Orchestra'])}`;
        default:
          return `${g.word(2, 3)} ${COMPANY_WORDS[industry]}`;
      }
    });
    const organisation = g.add('organisation', kind, title);
    organisation.refs.Headquarters = city.id;
    // Film studios and record labels are 20th-century institutions.
    const earliest = kind === 'studio' || kind === 'label' ? 1895 : 1700;
    organisation.facts.Founded = g.int(Math.max(earliest, (city.facts.Founded as number) + 1), 1995);
    organisation.facts.Employees = kind === 'company' ? g.int(40, 120000) : g.int(20, 4000);
    if (kind === 'company') organisation.facts.Industry = industry;
    return organisation;
  });

  const people = Array.from({ length: personCount }, () => {
    const born = g.int(1760, 1990);
    // Films and records only exist for people of the 20th century.
    const creative = Object.keys(OCCUPATION_WORK).filter(
      (occupation) => born >= 1880 || (occupation !== 'film director' && occupation !== 'musician'),
    );
    const occupation = g.chance(0.6) ? g.pick(creative) : g.pick(OTHER_OCCUPATIONS);
    const person = g.add(
      'person',
      occupation,
      g.unique(() => `${g.pick(GIVEN_NAMES)} ${g.word(2, 3)}`),
    );
    person.facts.Born = born;
    person.facts.Occupation = occupation;
    const bornAfterFounding = cities.filter((city) => (city.facts.Founded as number) < born);
    person.refs.Birthplace = g.pick(bornAfterFounding.length > 0 ? bornAfterFounding : cities).id;
    if (born < 1945) person.facts.Died = Math.min(PRESENT_YEAR - 1, born + g.int(35, 95));
    const lastYear = (person.facts.Died as number | undefined) ?? PRESENT_YEAR;
    const employers = organisations.filter(
      (organisation) => (organisation.facts.Founded as number) < Math.min(born + 45, lastYear - 1),
    );
    if (employers.length > 0 && g.chance(0.85)) {
      const employer = g.pick(employers);
      person.refs.Employer = employer.id;
      // Joined as an adult, after the founding, before death.
      person.facts.Joined = Math.min(
        lastYear - 1,
        Math.max(born + g.int(18, 30), (employer.facts.Founded as number) + 1),
      );
    }
    return person;
  });
  // Spouses: symmetric, born within 15 years of each other.
  for (const person of people) {
    if (person.refs.Spouse !== undefined || !g.chance(0.3)) continue;
    const born = person.facts.Born as number;
    const candidates = people.filter(
      (other) =>
        other !== person && other.refs.Spouse === undefined && Math.abs((other.facts.Born as number) - born) <= 15,
    );
    if (candidates.length === 0) continue;
    const spouse = g.pick(candidates);
    person.refs.Spouse = spouse.id;
    spouse.refs.Spouse = person.id;
  }
  // Founders: adults (18–70) in the founding year.
  for (const organisation of organisations) {
    const founded = organisation.facts.Founded as number;
    const founders = people.filter((person) => {
      const age = founded - (person.facts.Born as number);
      return age >= 18 && age <= 70 && (person.facts.Died === undefined || (person.facts.Died as number) >= founded);
    });
    if (founders.length > 0 && g.chance(0.8)) organisation.refs.Founder = g.pick(founders).id;
  }

  const creators = people.filter((person) => OCCUPATION_WORK[person.subtype] !== undefined);
  const works = Array.from({ length: workCount }, () => {
    const creator = g.pick(creators.length > 0 ? creators : people);
    const kind = OCCUPATION_WORK[creator.subtype] ?? g.pick(Object.values(OCCUPATION_WORK));
    const fields = WORK_FIELDS[kind] as (typeof WORK_FIELDS)[string];
    const title = g.unique(() => {
      switch (g.int(0, 3)) {
        case 0:
          return `The ${g.pick(ADJECTIVES)} ${g.pick(NOUNS)}`;
        case 1:
          return `${g.pick(NOUNS)} of ${g.pick(cities).title}`;
        case 2:
          return `${g.pick(ADJECTIVES)} ${plural(g.pick(NOUNS))}`;
        default:
          return `A ${g.pick(NOUNS)} for ${g.pick(GIVEN_NAMES)}`;
      }
    });
    const work = g.add('work', kind, title);
    const born = creator.facts.Born as number;
    const last = Math.min(PRESENT_YEAR, (creator.facts.Died as number | undefined) ?? born + 80);
    const year = g.int(Math.min(born + 20, last), last);
    work.facts[fields.year] = year;
    work.refs[fields.creator] = creator.id;
    const publishers = organisations.filter(
      (organisation) => organisation.subtype === fields.publisherKind && (organisation.facts.Founded as number) <= year,
    );
    if (publishers.length > 0) work.refs[fields.publisher] = g.pick(publishers).id;
    if (kind === 'novel' || kind === 'film') work.refs.Setting = g.pick(cities).id;
    if (creator.refs['Notable work'] === undefined) creator.refs['Notable work'] = work.id;
    return work;
  });

  return writeArticles(g, { countries, cities, organisations, people, works });
}

interface Entities {
  countries: Entity[];
  cities: Entity[];
  organisations: Entity[];
  people: Entity[];
  works: Entity[];
}

function writeArticles(g: Generator, all: Entities): Article[] {
  const byId = g.entities;
  const ref = (entity: Entity, field: string): Entity | undefined => {
    const id = entity.refs[field];
    return id === undefined ? undefined : byId[id];
  };
  const backlinks = (kind: Kind, field: string): Map<number, Entity[]> => {
    const map = new Map<number, Entity[]>();
    for (const entity of byId) {
      if (entity.kind !== kind || entity.refs[field] === undefined) continue;
      const list = map.get(entity.refs[field] as number) ?? [];
      list.push(entity);
      map.set(entity.refs[field] as number, list);
    }
    return map;
  };
  const bornIn = backlinks('person', 'Birthplace');
  const employs = backlinks('person', 'Employer');
  const headquartered = backlinks('organisation', 'Headquarters');
  const citiesOf = backlinks('city', 'Country');
  const setIn = backlinks('work', 'Setting');
  const worksBy = new Map<number, Entity[]>();
  const published = new Map<number, Entity[]>();
  for (const work of all.works) {
    const fields = WORK_FIELDS[work.subtype] as (typeof WORK_FIELDS)[string];
    const creator = work.refs[fields.creator] as number;
    worksBy.set(creator, [...(worksBy.get(creator) ?? []), work]);
    const publisher = work.refs[fields.publisher];
    if (publisher !== undefined) published.set(publisher, [...(published.get(publisher) ?? []), work]);
  }
  const list = (
    entities: readonly Entity[] | undefined,
    limit = 12,
    suffix: (entity: Entity) => string = () => '',
  ): string =>
    (entities ?? [])
      .slice(0, limit)
      .map((entity) => `* ${link(entity)}${suffix(entity)}`)
      .join('\n');
  const yearOf = (work: Entity): number =>
    work.facts[(WORK_FIELDS[work.subtype] as (typeof WORK_FIELDS)[string]).year] as number;

  const articles: Article[] = [];
  const push = (
    entity: Entity,
    type: string,
    infobox: Array<[string, string | number | Entity | undefined]>,
    lead: string[],
    sections: Array<[string, string[]]>,
  ): void => {
    const fields: InfoboxField[] = [];
    for (const [field, value] of infobox) {
      if (value === undefined) continue;
      fields.push({
        field,
        value:
          typeof value === 'object'
            ? link(value)
            : typeof value === 'number' &&
                field !== 'Born' &&
                field !== 'Died' &&
                !/^(Founded|Published|Released|Completed)$/.test(field)
              ? thousands(value)
              : String(value),
      });
    }
    const out: ArticleSection[] = [];
    for (const [title, paragraphs] of sections) {
      const text = paragraphs.filter((paragraph) => paragraph.trim().length > 0).join('\n\n');
      if (text) out.push({ title, text });
    }
    if (g.chance(0.05)) out.push({ title: 'See also', text: `* [[${g.missingTitle()}]]` }); // a red link, as real dumps have
    articles.push({ title: entity.title, type, infobox: fields, lead: lead.filter(Boolean).join(' '), sections: out });
  };

  for (const country of all.countries) {
    const capital = ref(country, 'Capital') as Entity;
    const cities = citiesOf.get(country.id) ?? [];
    push(
      country,
      'place',
      [
        ['Type', 'Country'],
        ['Capital', capital],
        ['Official language', country.facts['Official language']],
        ['Currency', country.facts.Currency],
        ['Founded', country.facts.Founded],
        ['Population', country.facts.Population],
      ],
      [
        `${country.title} is a country with a population of ${thousands(country.facts.Population as number)}.`,
        `Its capital is ${link(capital)}.`,
      ],
      [
        ['History', [`The state of ${country.title} was founded in ${country.facts.Founded}.`]],
        [
          'Culture',
          [
            `The official language of ${country.title} is ${country.facts['Official language']}, and its currency is the ${country.facts.Currency}.`,
          ],
        ],
        ['Cities', [list(cities, 20)]],
      ],
    );
  }

  for (const city of all.cities) {
    const country = ref(city, 'Country') as Entity;
    const neighbours = (citiesOf.get(country.id) ?? []).filter((other) => other !== city);
    const nearby =
      neighbours.length > 0
        ? [g.pick(neighbours), g.pick(neighbours)].filter((other, i, arr) => arr.indexOf(other) === i)
        : [];
    const people = bornIn.get(city.id);
    push(
      city,
      'place',
      [
        ['Type', 'City'],
        ['Country', country],
        ['Founded', city.facts.Founded],
        ['Population', city.facts.Population],
        ['Elevation', `${thousands(city.facts.Elevation as number)} m`],
      ],
      [
        `${city.title} is a city in ${link(country)}.`,
        `Founded in ${city.facts.Founded}, it has a population of ${thousands(city.facts.Population as number)}.`,
      ],
      [
        [
          'History',
          [
            `${city.title} was founded in ${city.facts.Founded}.`,
            ...(headquartered.get(city.id) ?? [])
              .slice(0, 1)
              .map((organisation) => `The city grew around ${link(organisation)}.`),
          ],
        ],
        [
          'Geography',
          [
            `The city lies at an elevation of ${thousands(city.facts.Elevation as number)} m.${nearby.length > 0 ? ` Nearby towns include ${nearby.map(link).join(' and ')}.` : ''}`,
          ],
        ],
        ['Notable people', [list(people)]],
        ['Organisations', [list(headquartered.get(city.id))]],
        ['In fiction', [list(setIn.get(city.id), 8)]],
      ],
    );
  }

  for (const organisation of all.organisations) {
    const city = ref(organisation, 'Headquarters') as Entity;
    const founder = ref(organisation, 'Founder');
    const kindText =
      organisation.subtype === 'company' ? `${organisation.facts.Industry} company` : organisation.subtype;
    push(
      organisation,
      'organisation',
      [
        ['Type', organisation.subtype.charAt(0).toUpperCase() + organisation.subtype.slice(1)],
        ['Industry', organisation.facts.Industry],
        ['Founded', organisation.facts.Founded],
        ['Founder', founder],
        ['Headquarters', city],
        ['Employees', organisation.facts.Employees],
      ],
      [
        `${organisation.title} is a ${kindText} headquartered in ${link(city)}.`,
        founder
          ? `It was founded in ${organisation.facts.Founded} by ${link(founder)}.`
          : `It was founded in ${organisation.facts.Founded}.`,
      ],
      [
        [
          'History',
          [
            `${organisation.title} was established in ${organisation.facts.Founded} and employs ${thousands(organisation.facts.Employees as number)} people.`,
          ],
        ],
        ['People', [list(employs.get(organisation.id))]],
        ['Works', [list(published.get(organisation.id), 12, (work) => ` (${yearOf(work)})`)]],
      ],
    );
  }

  for (const person of all.people) {
    const birthplace = ref(person, 'Birthplace') as Entity;
    const employer = ref(person, 'Employer');
    const spouse = ref(person, 'Spouse');
    const notable = ref(person, 'Notable work');
    const surname = person.title.split(' ').slice(1).join(' ');
    const born = person.facts.Born as number;
    const died = person.facts.Died as number | undefined;
    const colleagues = employer ? (employs.get(employer.id) ?? []).filter((other) => other !== person) : [];
    const colleague = colleagues.length > 0 ? g.pick(colleagues) : undefined;
    const life = died === undefined ? `born ${born}` : `${born}–${died}`;
    push(
      person,
      'person',
      [
        ['Born', born],
        ['Died', died],
        ['Birthplace', birthplace],
        ['Occupation', person.facts.Occupation],
        ['Employer', employer],
        ['Spouse', spouse],
        ['Notable work', notable],
      ],
      [
        `${person.title} (${life}) ${died === undefined ? 'is' : 'was'} a ${person.facts.Occupation} from ${link(birthplace)}.`,
        notable ? `${surname} is best known for ${link(notable)}.` : '',
      ],
      [
        ['Early life', [`${person.title} was born in ${born} in ${link(birthplace)}.`]],
        [
          'Career',
          [
            employer
              ? `In ${person.facts.Joined}, ${surname} joined ${link(employer)}.${colleague ? ` There ${surname} worked alongside ${link(colleague)}.` : ''}`
              : `${surname} worked independently for most of their life.`,
          ],
        ],
        ['Works', [list(worksBy.get(person.id), 12, (work) => ` (${yearOf(work)})`)]],
        [
          'Personal life',
          [
            spouse ? `${surname} was married to ${link(spouse)}.` : '',
            died !== undefined ? `${surname} died in ${died}.` : '',
          ],
        ],
      ],
    );
  }

  for (const work of all.works) {
    const fields = WORK_FIELDS[work.subtype] as (typeof WORK_FIELDS)[string];
    const creator = ref(work, fields.creator) as Entity;
    const publisher = ref(work, fields.publisher);
    const setting = ref(work, 'Setting');
    const year = yearOf(work);
    const siblings = (worksBy.get(creator.id) ?? []).filter((other) => other !== work);
    push(
      work,
      'work',
      [
        ['Type', work.subtype.charAt(0).toUpperCase() + work.subtype.slice(1)],
        [fields.creator, creator],
        [fields.year, year],
        [fields.publisher, publisher],
        ['Setting', setting],
      ],
      [`${work.title} is a ${year} ${work.subtype} ${fields.verb} by ${link(creator)}.`],
      [
        [
          'Background',
          [
            publisher
              ? `It was ${work.subtype === 'painting' ? 'acquired by' : 'published by'} ${link(publisher)}.`
              : '',
            setting ? `The story is set in ${link(setting)}.` : '',
          ],
        ],
        [
          'Reception',
          [
            siblings.length > 0
              ? `Critics compared it with ${link(g.pick(siblings))}, also by ${creator.title}.`
              : `It is the only ${work.subtype} by ${creator.title}.`,
          ],
        ],
      ],
    );
  }
  return articles;
}

const cache = new Map<string, Corpus>();

/**
 * The synthetic corpus for (seed, articles), built once per process and shared: it is immutable, and a
 * thousand envs of one pool must not each hold a copy.
 */
export function syntheticCorpus(options: SyntheticEncyclopediaOptions): Corpus {
  const key = `${options.seed}:${options.articles}`;
  let corpus = cache.get(key);
  if (!corpus) {
    corpus = new Corpus(generateSyntheticArticles(options), [], {
      name: `synthetic(seed=${options.seed}, articles=${options.articles})`,
      phrases: SYNTHETIC_PHRASES,
    });
    if (cache.size >= 8) cache.delete(cache.keys().next().value as string);
    cache.set(key, corpus);
  }
  return corpus;
}
