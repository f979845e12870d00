// vk-ops: 64-bit float arithmetic on values whose results are exact
// (multiples of 1/4 up to 8): fma, min, max, abs, compare; results
// narrowed to fp32 bits (exactly)
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float64 : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(std430, set = 0, binding = 1) readonly buffer In { uint v[]; } i;

void main()
{
    uint g = gl_GlobalInvocationID.x;
    uint x = i.v[g];
    double a = double(int(x & 63u) - 32) * double(0.25);
    double b = double(int((x >> 6) & 63u) - 32) * double(0.25);
    double c = double(int((x >> 12) & 63u) - 32) * double(0.25);

    o.v[4 * g] = floatBitsToUint(float(a * b + c));
    o.v[4 * g + 1] = floatBitsToUint(float(min(a, b) - max(b, c)));
    o.v[4 * g + 2] = floatBitsToUint(float(abs(a - c)));
    o.v[4 * g + 3] = a < b ? 1u : (a == b ? 2u : 3u);
}
