#version 450
// vk-draw's vertex shader: position and colour from the vertex buffer
layout(location = 0) in vec3 pos;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;

void main()
{
    v_color = color;
    gl_Position = vec4(pos, 1.0);
}
