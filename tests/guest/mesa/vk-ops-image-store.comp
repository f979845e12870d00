// vk-ops: each invocation stores a value made of its coordinates into a
// r32ui storage image
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 4, r32ui) uniform writeonly uimage2D img;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);

    imageStore(img, p, uvec4(uint(p.x) * 1000u + uint(p.y) + 0xa0000000u));
}
