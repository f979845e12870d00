// vk-ops: 64-bit integer arithmetic (wrapping mul/add, shifts across the
// halves, signed compare, division and remainder)
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint64_t v[]; } o;
layout(std430, set = 0, binding = 1) readonly buffer In { uint64_t v[]; } i;

void main()
{
    uint g = gl_GlobalInvocationID.x;
    uint64_t a = i.v[2 * g], b = i.v[2 * g + 1];
    int64_t sa = int64_t(a), sb = int64_t(b);

    o.v[4 * g] = a * b + 0x0123456789abcdefUL;
    o.v[4 * g + 1] = (a >> 37) ^ (b << 13) ^ uint64_t(sa >> 45);
    o.v[4 * g + 2] = uint64_t(sa < sb ? sa : sb);
    o.v[4 * g + 3] = a / ((b >> 32) | 1UL) + a % ((b & 0xffffUL) | 1UL);
}
