#version 450
// vk-draw's fragment shader: the interpolated colour
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 frag;

void main()
{
    frag = v_color;
}
