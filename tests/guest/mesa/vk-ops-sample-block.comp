// vk-ops: each invocation reads texel (x, y) = (id % 16, id / 16) of a
// 16x16 block-compressed texture three ways: texelFetch, textureLod at
// the texel's centre through a nearest sampler (binding 5), and
// textureLod at the texel's lower right corner, where four texels meet,
// through a linear sampler (binding 6); clamp to edge, LOD 0
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { vec4 v[]; } o;
layout(set = 0, binding = 5) uniform sampler2D nearest_tex;
layout(set = 0, binding = 6) uniform sampler2D linear_tex;

void main()
{
    uint id = gl_GlobalInvocationID.x;
    ivec2 p = ivec2(id % 16u, id / 16u);

    o.v[3u * id] = texelFetch(nearest_tex, p, 0);
    o.v[3u * id + 1u] = textureLod(nearest_tex, (vec2(p) + 0.5) / 16.0, 0.0);
    o.v[3u * id + 2u] = textureLod(linear_tex, vec2(p + 1) / 16.0, 0.0);
}
