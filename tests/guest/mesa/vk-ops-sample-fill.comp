// vk-ops: fills one level of the texture vk-ops-sample.comp samples: the
// level and its size are push constants, each channel of texel (x, y) is
// (37 x + 11 y + 53 level + 71 c) mod 256 (as unorm8)
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 4, rgba8) uniform writeonly image2D img;
layout(push_constant) uniform Push { uint level; uint size; } pc;

void main()
{
    uvec2 p = gl_GlobalInvocationID.xy;
    uvec4 k;

    if (p.x >= pc.size || p.y >= pc.size) {
        return;
    }
    k = (uvec4(p.x * 37u + p.y * 11u + pc.level * 53u) +
         uvec4(0u, 71u, 142u, 213u)) & 255u;
    imageStore(img, ivec2(p), vec4(k) / 255.0);
}
