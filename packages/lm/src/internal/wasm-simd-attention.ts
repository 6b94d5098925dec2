/**
 * The inner loops of `CACHED_ATTENTION` (scores over a row's open cache slots, softmax, weighted sum of the
 * values) as a WebAssembly SIMD function, assembled here from its opcodes: no compiler or package is needed
 * to build it, and it reads the tfjs wasm backend's own heap (it imports that memory), so nothing is copied
 * in or out.
 *
 * In float64 it computes what the plain JavaScript loops compute, in the same order and the same float64
 * arithmetic, so the outputs are the same bits: f64x2 lanes hold the even and the odd terms of each dot
 * product (the two partial sums the loop kept), the weighted sums add slot after slot, and `exp` is fdlibm's,
 * the algorithm V8's `Math.exp` runs (base/ieee754.cc), step for step. In float32 (what generation runs) the
 * dot products and weighted sums take four lanes at a time and differ from the loops by float32 rounding;
 * `exp` and the softmax stay as above. The JavaScript loops stay as the fallback (no SIMD, a head size not a
 * multiple of 4) and as the reference the tests hold both to.
 */

/**
 * attend(q, group, keys, values, open, count, mask, scores, out): byte addresses and counts, all i32. For each
 * of `group` query heads (float64, `headDim` each, from `q`): scores over the `count` slots listed at `open`
 * (key `s` at keys + 4·headDim·s, bias mask[s]), softmax, the weighted sum of the values, into `out` (float32).
 * `scores` is float64 scratch for `count` entries; it is left holding the last head's softmax weights
 * (before normalising).
 */
export type AttendFunction = (
  queries: number,
  group: number,
  keys: number,
  values: number,
  open: number,
  count: number,
  mask: number,
  scores: number,
  out: number,
) => void;

// Opcodes (WebAssembly core spec, SIMD proposal as standardised).
const I32 = 0x7f;
const F64 = 0x7c;
const V128 = 0x7b;
const BLOCK = 0x02;
const LOOP = 0x03;
const IF = 0x04;
const ELSE = 0x05;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const VOID = 0x40;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const I32_LOAD = 0x28;
const F32_LOAD = 0x2a;
const F64_LOAD = 0x2b;
const F32_STORE = 0x38;
const F64_STORE = 0x39;
const I32_CONST = 0x41;
const I64_CONST = 0x42;
const F64_CONST = 0x44;
const I32_EQZ = 0x45;
const I32_LT_S = 0x48;
const I32_GT_S = 0x4a;
const I32_GE_S = 0x4e;
const I32_GE_U = 0x4f;
const F64_EQ = 0x61;
const F64_NE = 0x62;
const F64_LT = 0x63;
const F64_GT = 0x64;
const I32_ADD = 0x6a;
const I32_MUL = 0x6c;
const I32_AND = 0x71;
const I32_SHL = 0x74;
const I32_SHR_U = 0x76;
const I64_SHL = 0x86;
const I64_SHR_U = 0x88;
const F64_ADD = 0xa0;
const F64_SUB = 0xa1;
const F64_MUL = 0xa2;
const F64_DIV = 0xa3;
const F64_MAX = 0xa5;
const I32_WRAP_I64 = 0xa7;
const I32_TRUNC_F64_S = 0xaa;
const I64_EXTEND_I32_U = 0xad;
const F32_DEMOTE_F64 = 0xb6;
const F64_CONVERT_I32_S = 0xb7;
const F64_PROMOTE_F32 = 0xbb;
const I64_REINTERPRET_F64 = 0xbd;
const F64_REINTERPRET_I64 = 0xbf;
const SIMD = 0xfd;
const V128_LOAD = 0x00;
const V128_CONST = 0x0c;
const I8X16_SHUFFLE = 0x0d;
const F64X2_SPLAT = 0x14;
const F64X2_EXTRACT_LANE = 0x21;
const F64X2_PROMOTE_LOW_F32X4 = 0x5f;
const F64X2_ADD = 0xf0;
const F64X2_MUL = 0xf2;
const F32_ADD = 0x92;
const F32X4_SPLAT = 0x13;
const F32X4_EXTRACT_LANE = 0x1f;
const F32X4_DEMOTE_F64X2_ZERO = 0x5e;
const F32X4_ADD = 0xe4;
const F32X4_MUL = 0xe6;

function unsigned(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

function signed(value: bigint): number[] {
  const bytes: number[] = [];
  for (;;) {
    const byte = Number(value & 0x7fn);
    value >>= 7n;
    const done = (value === 0n && (byte & 0x40) === 0) || (value === -1n && (byte & 0x40) !== 0);
    bytes.push(done ? byte : byte | 0x80);
    if (done) return bytes;
  }
}

function float64(value: number): number[] {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, value, true);
  return [...bytes];
}

/** A function body under construction: opcodes with their immediates. */
class Body {
  readonly bytes: number[] = [];
  op(...bytes: number[]): this {
    this.bytes.push(...bytes);
    return this;
  }
  get(local: number): this {
    return this.op(LOCAL_GET, ...unsigned(local));
  }
  set(local: number): this {
    return this.op(LOCAL_SET, ...unsigned(local));
  }
  tee(local: number): this {
    return this.op(LOCAL_TEE, ...unsigned(local));
  }
  i32(value: number): this {
    return this.op(I32_CONST, ...signed(BigInt(value)));
  }
  f64(value: number): this {
    return this.op(F64_CONST, ...float64(value));
  }
  /** A load or store with its alignment (log2 bytes) and a constant offset. */
  memory(opcode: number, align: number, offset = 0): this {
    return this.op(opcode, ...unsigned(align), ...unsigned(offset));
  }
  simd(opcode: number, ...immediates: number[]): this {
    return this.op(SIMD, ...unsigned(opcode), ...immediates);
  }
  v128Load(offset: number): this {
    return this.op(SIMD, ...unsigned(V128_LOAD), ...unsigned(2), ...unsigned(offset));
  }
}

/** fdlibm's constants for exp (e_exp.c), as V8's base/ieee754.cc has them. */
const EXP = {
  oThreshold: 7.09782712893383973096e2,
  uThreshold: -7.4513321910194110842e2,
  ln2Hi: 6.9314718036912381649e-1,
  ln2Lo: 1.90821492927058770002e-10,
  invLn2: 1.442695040888963387,
  p1: 1.66666666666666019037e-1,
  p2: -2.77777777770155933842e-3,
  p3: 6.61375632143793436117e-5,
  p4: -1.6533902205465251539e-6,
  p5: 4.13813679705723846039e-8,
  twoM1000: 9.3326361850321887899e-302,
};

/**
 * Locals of `attend` (after its 9 parameters). Each number is a local's index; the declaration groups
 * below must list them in this order.
 */
const P = { q: 0, group: 1, keys: 2, values: 3, open: 4, count: 5, mask: 6, scores: 7, out: 8 };
const L = {
  // i32
  g: 9,
  i: 10,
  slot: 11,
  qg: 12,
  outg: 13,
  k: 14,
  hx: 15,
  sign: 16,
  /** The address of a slot's key or value. */
  at: 17,
  // f64
  max: 18,
  score: 19,
  total: 20,
  x: 21,
  hi: 22,
  lo: 23,
  t: 24,
  c: 25,
  y: 26,
  weight: 27,
  inverse: 28,
  // v128: acc, kv, then one accumulator per two dimensions
  acc: 29,
  kv: 30,
  sums: 31,
};

/** Appends fdlibm's exp(x) (x in local `L.x`) to `body`, leaving the result in local `L.y`. */
function emitExp(body: Body): void {
  const { x, hx, sign, hi, lo, k, t, c, y } = L;
  // hx = high word of x without its sign; sign = 1 for negative x.
  body
    .get(x)
    .op(I64_REINTERPRET_F64)
    .op(I64_CONST, ...signed(32n))
    .op(I64_SHR_U)
    .op(I32_WRAP_I64)
    .tee(hx)
    .i32(31)
    .op(I32_SHR_U)
    .set(sign)
    .get(hx)
    .i32(0x7fffffff)
    .op(I32_AND)
    .set(hx);
  // The whole computation is one block; each early answer sets y and leaves it.
  body.op(BLOCK, VOID);
  // |x| ≥ 709.78: NaN stays NaN, overflow gives +inf, underflow 0 (fdlibm's huge*huge and twom1000²).
  body.get(hx).i32(0x40862e42).op(I32_GE_U).op(IF, VOID);
  body.get(x).get(x).op(F64_NE).op(IF, VOID).get(x).get(x).op(F64_ADD).set(y).op(BR, 2).op(END);
  body.get(x).f64(EXP.oThreshold).op(F64_GT).op(IF, VOID).f64(Infinity).set(y).op(BR, 2).op(END);
  body.get(x).f64(EXP.uThreshold).op(F64_LT).op(IF, VOID).f64(0).set(y).op(BR, 2).op(END);
  body.op(END);
  // Argument reduction: x = k·ln2 + r, |r| ≤ 0.5·ln2, r = hi − lo.
  body.i32(0).set(k).f64(0).set(lo);
  body.get(hx).i32(0x3fd62e42).op(I32_GT_S).op(IF, VOID);
  {
    body.get(hx).i32(0x3ff0a2b2).op(I32_LT_S).op(IF, VOID);
    // |x| < 1.5·ln2: k = ±1 (V8 answers exp(1) with the double nearest e, which this reduction misses by a bit).
    body.get(x).f64(1).op(F64_EQ).op(IF, VOID).f64(Math.E).set(y).op(BR, 3).op(END);
    body.get(sign).op(IF, VOID);
    body.get(x).f64(-EXP.ln2Hi).op(F64_SUB).set(hi).f64(-EXP.ln2Lo).set(lo).i32(-1).set(k);
    body.op(ELSE);
    body.get(x).f64(EXP.ln2Hi).op(F64_SUB).set(hi).f64(EXP.ln2Lo).set(lo).i32(1).set(k);
    body.op(END);
    body.op(ELSE);
    // k = (int)(invln2·x ± 0.5), truncated toward zero as C's cast.
    body.f64(EXP.invLn2).get(x).op(F64_MUL);
    body.get(sign).op(IF, F64).f64(-0.5).op(ELSE).f64(0.5).op(END);
    body.op(F64_ADD).op(I32_TRUNC_F64_S).tee(k).op(F64_CONVERT_I32_S).set(t);
    body.get(x).get(t).f64(EXP.ln2Hi).op(F64_MUL).op(F64_SUB).set(hi);
    body.get(t).f64(EXP.ln2Lo).op(F64_MUL).set(lo);
    body.op(END);
    body.get(hi).get(lo).op(F64_SUB).set(x);
  }
  body.op(ELSE);
  // |x| < 2⁻²⁸: 1 + x.
  body.get(hx).i32(0x3e300000).op(I32_LT_S).op(IF, VOID).f64(1).get(x).op(F64_ADD).set(y).op(BR, 2).op(END);
  body.op(END);
  // c = x − t·(P1 + t·(P2 + t·(P3 + t·(P4 + t·P5)))), t = x².
  body.get(x).get(x).op(F64_MUL).set(t);
  body
    .get(x)
    .get(t)
    .f64(EXP.p1)
    .get(t)
    .f64(EXP.p2)
    .get(t)
    .f64(EXP.p3)
    .get(t)
    .f64(EXP.p4)
    .get(t)
    .f64(EXP.p5)
    .op(F64_MUL)
    .op(F64_ADD)
    .op(F64_MUL)
    .op(F64_ADD)
    .op(F64_MUL)
    .op(F64_ADD)
    .op(F64_MUL)
    .op(F64_ADD)
    .op(F64_MUL)
    .op(F64_SUB)
    .set(c);
  // k = 0: 1 − ((x·c)/(c − 2) − x).
  body.get(k).op(I32_EQZ).op(IF, VOID);
  body.f64(1).get(x).get(c).op(F64_MUL).get(c).f64(2).op(F64_SUB).op(F64_DIV).get(x).op(F64_SUB).op(F64_SUB).set(y);
  body.op(BR, 1).op(END);
  // y = 1 − ((lo − (x·c)/(2 − c)) − hi), then y·2^k (2^(k+1000)·2⁻¹⁰⁰⁰ below k = −1021).
  body.f64(1).get(lo).get(x).get(c).op(F64_MUL).f64(2).get(c).op(F64_SUB).op(F64_DIV).op(F64_SUB);
  body.get(hi).op(F64_SUB).op(F64_SUB).set(y);
  const twoToThe = (shift: number): void => {
    // INSERT_WORDS(twopk, 0x3ff00000 + ((k + shift) << 20), 0)
    body.get(y).i32(0x3ff00000).get(k).i32(shift).op(I32_ADD).i32(20).op(I32_SHL).op(I32_ADD);
    body
      .op(I64_EXTEND_I32_U)
      .op(I64_CONST, ...signed(32n))
      .op(I64_SHL)
      .op(F64_REINTERPRET_I64)
      .op(F64_MUL);
  };
  body.get(k).i32(-1021).op(I32_GE_S).op(IF, VOID);
  twoToThe(0);
  body.set(y);
  body.op(ELSE);
  twoToThe(1000);
  body.f64(EXP.twoM1000).op(F64_MUL).set(y);
  body.op(END);
  body.op(END);
}

/**
 * How `attend` multiplies and adds: `float64` as the JavaScript loops (the same bits), or `float32`: the dot
 * products and the weighted sums in f32x4 lanes (four terms an instruction instead of two, no promotion of
 * each key and value), the scores, the softmax and its total still in float64. The attended values then
 * differ from the loops' by float32 rounding (~1e-6 relative), so sampled tokens may differ where two are
 * nearly tied.
 */
export type AttentionPrecision = 'float64' | 'float32';

/**
 * The module's bytes for head size `headDim` (a multiple of 4): its loops over a head's dimensions are
 * unrolled, with one accumulator per two dimensions (f64x2) or four (f32x4) in locals. `shared`: the
 * backend's memory is a SharedArrayBuffer (its threaded build), which an import must declare, with a maximum.
 */
export function attentionModuleBytes(
  headDim: number,
  shared: boolean,
  precision: AttentionPrecision = 'float64',
): Uint8Array {
  if (headDim % 4 !== 0 || headDim <= 0) throw new RangeError(`headDim ${headDim} is not a positive multiple of 4.`);
  const body = precision === 'float32' ? float32Body(headDim) : float64Body(headDim);
  const vectors = precision === 'float32' ? 2 + 2 * (headDim / 4) : 2 + headDim / 2;
  const locals = [
    [9, I32],
    [11, F64],
    [vectors, V128],
  ] as const;
  const code = [...unsigned(locals.length), ...locals.flatMap(([n, type]) => [...unsigned(n), type]), ...body.bytes];
  const section = (id: number, content: number[]): number[] => [id, ...unsigned(content.length), ...content];
  const name = (text: string): number[] => [...unsigned(text.length), ...[...text].map((ch) => ch.charCodeAt(0))];
  const limits = shared ? [0x03, ...unsigned(1), ...unsigned(65536)] : [0x00, ...unsigned(1)];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 9, ...new Array<number>(9).fill(I32), 0]),
    ...section(2, [1, ...name('env'), ...name('memory'), 0x02, ...limits]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('attend'), 0x00, 0]),
    ...section(10, [1, ...unsigned(code.length), ...code]),
  ]);
}

/** `attend` in float64, the JavaScript loops' arithmetic in their order. */
function float64Body(headDim: number): Body {
  const pairs = headDim / 2;
  const body = new Body();
  const { q, group, keys, values, open, count, mask, scores, out } = P;
  const { g, i, slot, qg, outg, max, score, total, weight, inverse, acc, kv, sums } = L;
  const rowBytes = headDim * 4;
  // for (g = 0; g < group; g++)
  body.i32(0).set(g);
  body.op(BLOCK, VOID).op(LOOP, VOID);
  body.get(g).get(group).op(I32_GE_S).op(BR_IF, 1);
  body
    .get(q)
    .get(g)
    .i32(headDim * 8)
    .op(I32_MUL)
    .op(I32_ADD)
    .set(qg);
  body
    .get(out)
    .get(g)
    .i32(headDim * 4)
    .op(I32_MUL)
    .op(I32_ADD)
    .set(outg);
  // Scores: bias + (even terms + odd terms), and their maximum.
  body.f64(-Infinity).set(max);
  body.i32(0).set(i);
  body.op(BLOCK, VOID).op(LOOP, VOID);
  body.get(i).get(count).op(I32_GE_S).op(BR_IF, 1);
  body.get(open).get(i).i32(2).op(I32_SHL).op(I32_ADD).memory(I32_LOAD, 2).set(slot);
  body.get(keys).get(slot).i32(rowBytes).op(I32_MUL).op(I32_ADD).set(L.at);
  body.simd(V128_CONST, ...new Array<number>(16).fill(0)).set(acc);
  for (let d = 0; d < headDim; d += 4) {
    body
      .get(L.at)
      .v128Load(d * 4)
      .set(kv);
    // acc += q[d, d+1]·k[d, d+1]
    body
      .get(acc)
      .get(qg)
      .v128Load(d * 8)
      .get(kv)
      .simd(F64X2_PROMOTE_LOW_F32X4)
      .simd(F64X2_MUL)
      .simd(F64X2_ADD);
    // acc += q[d+2, d+3]·k[d+2, d+3]
    body.get(qg).v128Load(d * 8 + 16);
    body.get(kv).get(kv).simd(I8X16_SHUFFLE, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    body.simd(F64X2_PROMOTE_LOW_F32X4).simd(F64X2_MUL).simd(F64X2_ADD).set(acc);
  }
  body.get(mask).get(slot).i32(2).op(I32_SHL).op(I32_ADD).memory(F32_LOAD, 2).op(F64_PROMOTE_F32);
  body.get(acc).simd(F64X2_EXTRACT_LANE, 0).get(acc).simd(F64X2_EXTRACT_LANE, 1).op(F64_ADD).op(F64_ADD).set(score);
  body.get(scores).get(i).i32(3).op(I32_SHL).op(I32_ADD).get(score).memory(F64_STORE, 3);
  body.get(max).get(score).op(F64_MAX).set(max);
  body.get(i).i32(1).op(I32_ADD).set(i).op(BR, 0);
  body.op(END).op(END);
  // Weights exp(score − max), their total, and the weighted sum of the values, slot after slot.
  for (let pair = 0; pair < pairs; pair++) body.simd(V128_CONST, ...new Array<number>(16).fill(0)).set(sums + pair);
  body.f64(0).set(total);
  body.i32(0).set(i);
  body.op(BLOCK, VOID).op(LOOP, VOID);
  body.get(i).get(count).op(I32_GE_S).op(BR_IF, 1);
  body.get(scores).get(i).i32(3).op(I32_SHL).op(I32_ADD).memory(F64_LOAD, 3).get(max).op(F64_SUB).set(L.x);
  emitExp(body);
  body.get(L.y).set(weight);
  // The weight replaces its score (read by nothing after this; it lets a test check exp bit for bit).
  body.get(scores).get(i).i32(3).op(I32_SHL).op(I32_ADD).get(weight).memory(F64_STORE, 3);
  body.get(total).get(weight).op(F64_ADD).set(total);
  body.get(open).get(i).i32(2).op(I32_SHL).op(I32_ADD).memory(I32_LOAD, 2).set(slot);
  body.get(values).get(slot).i32(rowBytes).op(I32_MUL).op(I32_ADD).set(L.at);
  body.get(weight).simd(F64X2_SPLAT).set(acc);
  for (let d = 0; d < headDim; d += 4) {
    body
      .get(L.at)
      .v128Load(d * 4)
      .set(kv);
    body
      .get(sums + d / 2)
      .get(acc)
      .get(kv)
      .simd(F64X2_PROMOTE_LOW_F32X4)
      .simd(F64X2_MUL)
      .simd(F64X2_ADD);
    body.set(sums + d / 2);
    body.get(sums + d / 2 + 1).get(acc);
    body.get(kv).get(kv).simd(I8X16_SHUFFLE, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    body
      .simd(F64X2_PROMOTE_LOW_F32X4)
      .simd(F64X2_MUL)
      .simd(F64X2_ADD)
      .set(sums + d / 2 + 1);
  }
  body.get(i).i32(1).op(I32_ADD).set(i).op(BR, 0);
  body.op(END).op(END);
  // out = sums · (1 / total), rounded to float32.
  body.f64(1).get(total).op(F64_DIV).set(inverse);
  for (let pair = 0; pair < pairs; pair++) {
    for (const lane of [0, 1]) {
      body
        .get(outg)
        .get(sums + pair)
        .simd(F64X2_EXTRACT_LANE, lane)
        .get(inverse)
        .op(F64_MUL)
        .op(F32_DEMOTE_F64);
      body.memory(F32_STORE, 2, (2 * pair + lane) * 4);
    }
  }
  body.get(g).i32(1).op(I32_ADD).set(g).op(BR, 0);
  body.op(END).op(END);
  body.op(END);
  return body;
}

/**
 * `attend` with float32 dot products and weighted sums. The query head (float64 in memory, each value a
 * float32 rounded by the kernel, so demoting it is exact) sits in f32x4 locals for the whole pass over the
 * slots; a dot product is four-lane products summed lane by lane, then its lanes (0 + 1) + (2 + 3); exp and
 * the softmax total stay fdlibm's float64.
 */
function float32Body(headDim: number): Body {
  const quads = headDim / 4;
  const body = new Body();
  const { q, group, keys, values, open, count, mask, scores, out } = P;
  const { g, i, slot, qg, outg, max, score, total, weight, inverse, acc, kv } = L;
  // v128 locals after acc and kv: the weighted sums, then the query head, four dimensions each.
  const sums = L.sums;
  const queries = L.sums + quads;
  const rowBytes = headDim * 4;
  body.i32(0).set(g);
  body.op(BLOCK, VOID).op(LOOP, VOID);
  body.get(g).get(group).op(I32_GE_S).op(BR_IF, 1);
  body
    .get(q)
    .get(g)
    .i32(headDim * 8)
    .op(I32_MUL)
    .op(I32_ADD)
    .set(qg);
  body
    .get(out)
    .get(g)
    .i32(headDim * 4)
    .op(I32_MUL)
    .op(I32_ADD)
    .set(outg);
  // queries[j] = the head's dimensions 4j … 4j + 3 as float32.
  for (let j = 0; j < quads; j++) {
    body
      .get(qg)
      .v128Load(j * 32)
      .simd(F32X4_DEMOTE_F64X2_ZERO);
    body
      .get(qg)
      .v128Load(j * 32 + 16)
      .simd(F32X4_DEMOTE_F64X2_ZERO);
    body.simd(I8X16_SHUFFLE, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23).set(queries + j);
  }
  // Scores: bias + q·k, and their maximum.
  body.f64(-Infinity).set(max);
  body.i32(0).set(i);
  body.op(BLOCK, VOID).op(LOOP, VOID);
  body.get(i).get(count).op(I32_GE_S).op(BR_IF, 1);
  body.get(open).get(i).i32(2).op(I32_SHL).op(I32_ADD).memory(I32_LOAD, 2).set(slot);
  body.get(keys).get(slot).i32(rowBytes).op(I32_MUL).op(I32_ADD).set(L.at);
  body.get(L.at).v128Load(0).get(queries).simd(F32X4_MUL).set(acc);
  for (let j = 1; j < quads; j++) {
    body
      .get(acc)
      .get(L.at)
      .v128Load(j * 16)
      .get(queries + j)
      .simd(F32X4_MUL)
      .simd(F32X4_ADD)
      .set(acc);
  }
  body.get(mask).get(slot).i32(2).op(I32_SHL).op(I32_ADD).memory(F32_LOAD, 2).op(F64_PROMOTE_F32);
  body.get(acc).simd(F32X4_EXTRACT_LANE, 0).get(acc).simd(F32X4_EXTRACT_LANE, 1).op(F32_ADD);
  body.get(acc).simd(F32X4_EXTRACT_LANE, 2).get(acc).simd(F32X4_EXTRACT_LANE, 3).op(F32_ADD);
  body.op(F32_ADD).op(F64_PROMOTE_F32).op(F64_ADD).set(score);
  body.get(scores).get(i).i32(3).op(I32_SHL).op(I32_ADD).get(score).memory(F64_STORE, 3);
  body.get(max).get(score).op(F64_MAX).set(max);
  body.get(i).i32(1).op(I32_ADD).set(i).op(BR, 0);
  body.op(END).op(END);
  // Weights exp(score − max) (float64), their total, and the weighted sum of the values in float32.
  for (let j = 0; j < quads; j++) body.simd(V128_CONST, ...new Array<number>(16).fill(0)).set(sums + j);
  body.f64(0).set(total);
  body.i32(0).set(i);
  body.op(BLOCK, VOID).op(LOOP, VOID);
  body.get(i).get(count).op(I32_GE_S).op(BR_IF, 1);
  body.get(scores).get(i).i32(3).op(I32_SHL).op(I32_ADD).memory(F64_LOAD, 3).get(max).op(F64_SUB).set(L.x);
  emitExp(body);
  body.get(L.y).set(weight);
  body.get(scores).get(i).i32(3).op(I32_SHL).op(I32_ADD).get(weight).memory(F64_STORE, 3);
  body.get(total).get(weight).op(F64_ADD).set(total);
  body.get(open).get(i).i32(2).op(I32_SHL).op(I32_ADD).memory(I32_LOAD, 2).set(slot);
  body.get(values).get(slot).i32(rowBytes).op(I32_MUL).op(I32_ADD).set(L.at);
  body.get(weight).op(F32_DEMOTE_F64).simd(F32X4_SPLAT).set(kv);
  for (let j = 0; j < quads; j++) {
    body
      .get(sums + j)
      .get(L.at)
      .v128Load(j * 16)
      .get(kv)
      .simd(F32X4_MUL)
      .simd(F32X4_ADD)
      .set(sums + j);
  }
  body.get(i).i32(1).op(I32_ADD).set(i).op(BR, 0);
  body.op(END).op(END);
  // out = sums · (1 / total), rounded to float32.
  body.f64(1).get(total).op(F64_DIV).set(inverse);
  for (let j = 0; j < quads; j++) {
    for (let lane = 0; lane < 4; lane++) {
      body
        .get(outg)
        .get(sums + j)
        .simd(F32X4_EXTRACT_LANE, lane)
        .op(F64_PROMOTE_F32)
        .get(inverse)
        .op(F64_MUL)
        .op(F32_DEMOTE_F64);
      body.memory(F32_STORE, 2, (4 * j + lane) * 4);
    }
  }
  body.get(g).i32(1).op(I32_ADD).set(g).op(BR, 0);
  body.op(END).op(END);
  body.op(END);
  return body;
}

/** The part of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}
const wasmApi = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** Modules already built, by head size, precision and memory (every model of a head size shares one). */
const instances = new WeakMap<WasmMemory, Map<string, AttendFunction | null>>();

/**
 * `attend` on `memory` for head size `headDim`, or null where it cannot run: WebAssembly without SIMD, or a
 * head size that is not a multiple of 4 (the JavaScript loops then run).
 */
export function simdAttention(
  memory: WasmMemory,
  headDim: number,
  precision: AttentionPrecision = 'float64',
): AttendFunction | null {
  let byHead = instances.get(memory);
  if (!byHead) instances.set(memory, (byHead = new Map()));
  const key = `${headDim}/${precision}`;
  const known = byHead.get(key);
  if (known !== undefined) return known;
  let attend: AttendFunction | null = null;
  if (wasmApi && headDim % 4 === 0 && headDim > 0) {
    const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
    const bytes = attentionModuleBytes(headDim, shared, precision);
    if (wasmApi.validate(bytes)) {
      const instance = new wasmApi.Instance(new wasmApi.Module(bytes), { env: { memory } });
      attend = instance.exports.attend as AttendFunction;
    }
  }
  byHead.set(key, attend);
  return attend;
}
