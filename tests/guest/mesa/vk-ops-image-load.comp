// vk-ops: each invocation loads its texel of a r32ui storage image and
// stores texel * 3 + 1 into a buffer, row by row
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(set = 0, binding = 4, r32ui) uniform readonly uimage2D img;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    uint w = gl_NumWorkGroups.x * gl_WorkGroupSize.x;

    o.v[uint(p.y) * w + uint(p.x)] = imageLoad(img, p).x * 3u + 1u;
}
