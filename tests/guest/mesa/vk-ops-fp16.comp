// vk-ops: 16-bit float arithmetic on values whose results are exact in
// fp16 (multiples of 1/4 up to 8): fma, min, max, abs, compare; results
// widened to fp32 bits
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(std430, set = 0, binding = 1) readonly buffer In { uint v[]; } i;

void main()
{
    uint g = gl_GlobalInvocationID.x;
    uint x = i.v[g];
    float16_t a = float16_t(int(x & 63u) - 32) * float16_t(0.25);
    float16_t b = float16_t(int((x >> 6) & 63u) - 32) * float16_t(0.25);
    float16_t c = float16_t(int((x >> 12) & 63u) - 32) * float16_t(0.25);

    o.v[4 * g] = floatBitsToUint(float(a * b + c));
    o.v[4 * g + 1] = floatBitsToUint(float(min(a, b) - max(b, c)));
    o.v[4 * g + 2] = floatBitsToUint(float(abs(a - c)));
    o.v[4 * g + 3] = a < b ? 1u : (a == b ? 2u : 3u);
}
