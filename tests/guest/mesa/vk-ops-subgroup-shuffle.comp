// vk-ops: subgroupShuffle from lane (id * 7 + 3) % size; each invocation also
// writes its subgroup lane, subgroup and subgroup size, so that the CPU
// reference knows which invocations shared a subgroup
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(std430, set = 0, binding = 1) readonly buffer In { uint v[]; } i;

void main()
{
    uint g = gl_GlobalInvocationID.x;
    uint x = i.v[g];

    o.v[4 * g] = subgroupShuffle(x, (gl_SubgroupInvocationID * 7u + 3u) % gl_SubgroupSize);
    o.v[4 * g + 1] = gl_SubgroupInvocationID;
    o.v[4 * g + 2] = gl_SubgroupID;
    o.v[4 * g + 3] = gl_SubgroupSize;
}
