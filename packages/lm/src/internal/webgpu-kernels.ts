import * as tf from '@tensorflow/tfjs';

/**
 * Kernels tfjs-webgpu runs wrongly for the LM. Every kernel the decoder, LoRA, the value head, KV-cache
 * generation and Adam use is registered for webgpu; one breaks on the devices tfjs asks for:
 *
 * - `AddN` compiles one shader reading all its inputs, one storage buffer each. tfjs requests the device
 *   without raising `maxStorageBuffersPerShaderStage`, so it has WebGPU's default of 8 (and OpenGL ES
 *   offers no more). The trainer's gradient clipping sums the squared norms of every trained variable in one
 *   AddN (55 inputs for a 2-layer model with LoRA and a value head), and backprop sums a tensor's gradients
 *   over its uses the same way; past the limit the pipeline is invalid and the sum silently wrong (Adam then
 *   moved the weights 2.5e-3 away from cpu's in two steps). This sums at most (limit − 1) inputs per shader,
 *   then the partial sums.
 */
interface WebGpuBackendLike {
  device: { limits: { maxStorageBuffersPerShaderStage: number } };
  disposeData(dataId: tf.DataId): boolean;
}

let registered = false;

export function registerWebGpuKernels(): void {
  if (registered) return;
  const addN = tf.getKernel('AddN', 'webgpu');
  if (!addN) return;
  registered = true;
  const plain = addN.kernelFunc;
  tf.unregisterKernel('AddN', 'webgpu');
  tf.registerKernel({
    kernelName: 'AddN',
    backendName: 'webgpu',
    kernelFunc: (args) => {
      const backend = args.backend as unknown as WebGpuBackendLike;
      // One storage buffer is the output.
      const most = Math.max(2, backend.device.limits.maxStorageBuffersPerShaderStage - 1);
      let inputs = args.inputs as unknown as tf.TensorInfo[];
      if (inputs.length <= most) return plain(args);
      const temporaries: tf.TensorInfo[] = [];
      while (inputs.length > most) {
        const partials: tf.TensorInfo[] = [];
        for (let start = 0; start < inputs.length; start += most) {
          const group = inputs.slice(start, start + most);
          if (group.length === 1) {
            partials.push(group[0] as tf.TensorInfo);
            continue;
          }
          const sum = plain({ ...args, inputs: group as unknown as tf.NamedTensorInfoMap }) as tf.TensorInfo;
          temporaries.push(sum);
          partials.push(sum);
        }
        inputs = partials;
      }
      const out = plain({ ...args, inputs: inputs as unknown as tf.NamedTensorInfoMap }) as tf.TensorInfo;
      for (const info of temporaries) backend.disposeData(info.dataId);
      return out;
    },
  });
}
