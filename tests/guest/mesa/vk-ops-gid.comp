// vk-ops: each invocation stores its built-in IDs (3D grid, 3D groups)
#version 450
layout(local_size_x = 4, local_size_y = 4, local_size_z = 2) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;

void main()
{
    uvec3 g = gl_GlobalInvocationID;
    uvec3 n = gl_NumWorkGroups * gl_WorkGroupSize;
    uint i = (g.z * n.y + g.y) * n.x + g.x;
    uvec3 w = gl_WorkGroupID;

    o.v[2 * i] = g.x | (g.y << 10) | (g.z << 20);
    o.v[2 * i + 1] = w.x | (w.y << 8) | (w.z << 16) |
                     (gl_LocalInvocationIndex << 24);
}
