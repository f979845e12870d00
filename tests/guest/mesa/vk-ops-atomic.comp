// vk-ops: global atomics; result block: [0] counter, [1] cas counter,
// [2] max, [3] min, [4] or, [5] xor, [16..31] bins; slots: one per
// invocation, filled in the order the counter hands them out
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Res { uint r[]; } res;
layout(std430, set = 0, binding = 1) buffer Slots { uint v[]; } slots;

uint hash(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void main()
{
    uint g = gl_GlobalInvocationID.x;
    uint h = hash(g);
    uint slot = atomicAdd(res.r[0], 1u);
    uint old;

    slots.v[slot] = g + 1u;
    atomicMax(res.r[2], h);
    atomicMin(res.r[3], h);
    atomicOr(res.r[4], 1u << (g % 32u));
    atomicXor(res.r[5], h);
    atomicAdd(res.r[16 + g % 16u], g);
    do {
        old = res.r[1];
    } while (atomicCompSwap(res.r[1], old, old + 1u) != old);
}
