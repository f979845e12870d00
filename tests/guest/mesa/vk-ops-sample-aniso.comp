// vk-ops: each invocation samples a 64x64 mipmapped texture with
// explicit gradients 8 texels long along x and 1 texel along y, at the
// centre of row id % 64, through an anisotropic sampler (binding 5) and
// an isotropic one (binding 6)
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { vec4 v[]; } o;
layout(set = 0, binding = 5) uniform sampler2D aniso_tex;
layout(set = 0, binding = 6) uniform sampler2D iso_tex;

void main()
{
    uint id = gl_GlobalInvocationID.x;
    vec2 uv = vec2((float((id * 7u) % 64u) + 0.5) / 64.0,
                   (float(id % 64u) + 0.5) / 64.0);
    vec2 dx = vec2(8.0 / 64.0, 0.0), dy = vec2(0.0, 1.0 / 64.0);

    o.v[2u * id] = textureGrad(aniso_tex, uv, dx, dy);
    o.v[2u * id + 1u] = textureGrad(iso_tex, uv, dx, dy);
}
