// vk-ops: out[i] = (i * mul + add) ^ xorv for i < n, from push constants
#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Pc { uint mul; uint add; uint xorv; uint n; } pc;
layout(std430, set = 0, binding = 0) buffer Out { uint v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;

    if (i < pc.n) {
        o.v[i] = (i * pc.mul + pc.add) ^ pc.xorv;
    }
}
