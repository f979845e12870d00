// vk-ops: 16-bit integer arithmetic (wrapping mul/add, shifts, signed
// compare, division and remainder), results widened to 32 bits
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(std430, set = 0, binding = 1) readonly buffer In { uint v[]; } i;

void main()
{
    uint g = gl_GlobalInvocationID.x;
    uint16_t a = uint16_t(i.v[g]);
    uint16_t b = uint16_t(i.v[g] >> 16);
    int16_t sa = int16_t(a), sb = int16_t(b);

    o.v[4 * g] = uint(a * b + uint16_t(0x1234));
    o.v[4 * g + 1] = uint((a >> 3) ^ (b << 5));
    o.v[4 * g + 2] = uint(uint16_t(sa < sb ? sa - sb : sb - sa));
    o.v[4 * g + 3] = uint(a / (b | uint16_t(1))) |
                     (uint(a % (b | uint16_t(1))) << 16);
}
