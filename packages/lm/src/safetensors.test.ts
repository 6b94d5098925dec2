import { CheckpointError } from './lm-errors';
import type { NamedTensors } from './named-tensors';
import { readSafetensors, writeSafetensors } from './safetensors';

const tensors: NamedTensors = new Map([
  ['b.weight', { shape: [2, 3], data: Float32Array.from([1, -2.5, 0.1, 65504, 1e-7, -0]) }],
  ['a.bias', { shape: [1], data: Float32Array.from([3.140625]) }],
]);

/** A safetensors file written by hand, the way HF's library lays it out. */
function handWritten(header: Record<string, unknown>, data: Uint8Array): Uint8Array {
  const text = JSON.stringify(header);
  const headerBytes = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + headerBytes.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  out.set(data, 8 + headerBytes.length);
  return out;
}

describe('safetensors', () => {
  it('round-trips float32 exactly, with metadata, sorted names and an 8-byte aligned header', () => {
    const bytes = writeSafetensors(tensors, { metadata: { format: 'pt' } });
    expect(Number(new DataView(bytes.buffer).getBigUint64(0, true)) % 8).toBe(0);
    const file = readSafetensors(bytes);
    expect([...file.tensors.keys()]).toEqual(['a.bias', 'b.weight']);
    expect(file.metadata).toEqual({ format: 'pt' });
    expect(file.tensors.get('b.weight')).toEqual(tensors.get('b.weight'));
  });

  it('reads F16 and BF16 written by another writer', () => {
    // 1.0, -2.0, 0.5, 65504 (max half), a subnormal 2^-24 in F16; 1.0, -2.0, 3.140625 in BF16.
    const f16 = Uint16Array.from([0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001]);
    const bf16 = Uint16Array.from([0x3f80, 0xc000, 0x4049]);
    const data = new Uint8Array(16);
    data.set(new Uint8Array(f16.buffer), 0);
    data.set(new Uint8Array(bf16.buffer), 10);
    const file = readSafetensors(
      handWritten(
        {
          h: { dtype: 'F16', shape: [5], data_offsets: [0, 10] },
          g: { dtype: 'BF16', shape: [3], data_offsets: [10, 16] },
        },
        data,
      ),
    );
    expect([...file.tensors.get('h')!.data]).toEqual([1, -2, 0.5, 65504, 2 ** -24]);
    expect([...file.tensors.get('g')!.data]).toEqual([1, -2, 3.140625]);
    expect(file.dtypes.get('g')).toBe('BF16');
  });

  it('writes F16 and BF16 that read back within their precision', () => {
    for (const [dtype, tolerance] of [
      ['F16', 1e-3],
      ['BF16', 8e-3],
    ] as const) {
      const back = readSafetensors(writeSafetensors(tensors, { dtype })).tensors.get('b.weight')!.data;
      tensors
        .get('b.weight')!
        .data.forEach((value, i) =>
          expect(Math.abs(back[i]! - value)).toBeLessThanOrEqual(Math.abs(value) * tolerance + 1e-7),
        );
    }
  });

  it('names the tensor whose bytes do not fit, and refuses other dtypes', () => {
    const short = handWritten({ w: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, new Uint8Array(8));
    expect(() => readSafetensors(short, 'x.safetensors')).toThrow(CheckpointError);
    expect(() => readSafetensors(short, 'x.safetensors')).toThrow(
      /x.safetensors: tensor "w".*run past the 8 data bytes/,
    );
    const ints = handWritten({ i: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, new Uint8Array(8));
    expect(() => readSafetensors(ints)).toThrow(/tensor "i" has dtype I64/);
    expect(() => readSafetensors(new Uint8Array([1, 2, 3]))).toThrow(/not a safetensors file/);
  });
});
