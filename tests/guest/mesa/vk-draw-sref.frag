#version 450
// vk-draw's stencil-export check: the push constant's colour, and the
// stencil reference 5 left of x = 32, 7 right of it
#extension GL_ARB_shader_stencil_export : require
layout(push_constant) uniform Push {
    vec4 colour;
} p;
layout(location = 0) flat in int v_layer;
layout(location = 0) out vec4 frag;

void main()
{
    gl_FragStencilRefARB = gl_FragCoord.x < 32.0 ? 5 : 7;
    frag = p.colour;
}
