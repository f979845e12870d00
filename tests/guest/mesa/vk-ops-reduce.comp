// vk-ops: per-workgroup sum of 256 inputs, a tree in shared memory
#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(std430, set = 0, binding = 1) readonly buffer In { uint v[]; } i;
shared uint s[256];

void main()
{
    uint l = gl_LocalInvocationIndex;

    s[l] = i.v[gl_GlobalInvocationID.x];
    barrier();
    for (uint stride = 128; stride > 0; stride >>= 1) {
        if (l < stride) {
            s[l] += s[l + stride];
        }
        barrier();
    }
    if (l == 0) {
        o.v[gl_WorkGroupID.x] = s[0];
    }
}
