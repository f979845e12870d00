// vk-ops: a histogram per workgroup with shared-memory atomics
#version 450
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(std430, set = 0, binding = 1) readonly buffer In { uint v[]; } i;
shared uint hist[16];
shared uint total;

void main()
{
    uint l = gl_LocalInvocationIndex;
    uint x = i.v[gl_GlobalInvocationID.x];

    if (l < 16) {
        hist[l] = 0;
    }
    if (l == 0) {
        total = 0;
    }
    barrier();
    atomicAdd(hist[x % 16u], 1u);
    atomicAdd(total, x);
    barrier();
    if (l < 16) {
        o.v[gl_WorkGroupID.x * 17u + l] = hist[l];
    }
    if (l == 16) {
        o.v[gl_WorkGroupID.x * 17u + 16u] = total;
    }
}
