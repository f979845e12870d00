#version 450
// vk-draw's alpha-to-coverage shader: white, alpha b / 7 in the band b of
// columns [16b, 16b + 16)
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 frag;

void main()
{
    frag = vec4(1.0, 1.0, 1.0, floor(gl_FragCoord.x / 16.0) / 7.0);
}
