#version 450
// vk-draw's depth/stencil and layer checks: the push constant's colour,
// its blue channel layer / 5
layout(push_constant) uniform Push {
    vec4 colour;
} p;
layout(location = 0) flat in int v_layer;
layout(location = 0) out vec4 frag;

void main()
{
    frag = vec4(p.colour.rg, float(v_layer) / 5.0 + p.colour.b, p.colour.a);
}
