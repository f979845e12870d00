// vk-ops: each invocation samples a mipmapped RGBA8 texture twice at
// explicit LODs: through a nearest sampler (nearest mipmaps, repeat and
// mirrored repeat) at in.v[2 id] and through a linear one (linear
// mipmaps, clamp to an opaque white border and clamp to edge) at
// in.v[2 id + 1] (x, y: coordinates, z: LOD)
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { vec4 v[]; } o;
layout(std430, set = 0, binding = 1) buffer In { vec4 v[]; } i;
layout(set = 0, binding = 5) uniform sampler2D nearest_tex;
layout(set = 0, binding = 6) uniform sampler2D linear_tex;

void main()
{
    uint id = gl_GlobalInvocationID.x;
    vec4 n = i.v[2u * id], l = i.v[2u * id + 1u];

    o.v[2u * id] = textureLod(nearest_tex, n.xy, n.z);
    o.v[2u * id + 1u] = textureLod(linear_tex, l.xy, l.z);
}
