"""A minimal QMP client for the project's test scripts (boot-test.py,
replay-device-trace.py): connect to QEMU's -qmp unix socket, run
commands, wait for a migration."""
import json
import socket
import time


class QMP:
    def __init__(self, path, tries=200):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(tries):
            try:
                self.sock.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        self.file = self.sock.makefile('rw')
        self._read()                      # greeting
        self.cmd('qmp_capabilities')

    def _read(self):
        while True:
            msg = json.loads(self.file.readline())
            if 'event' not in msg:
                return msg

    def cmd(self, name, **args):
        self.file.write(json.dumps({'execute': name, 'arguments': args}))
        self.file.flush()
        reply = self._read()
        if 'error' in reply:
            raise RuntimeError('%s: %s' % (name, reply['error']))
        return reply['return']

    def wait_migration(self, timeout):
        end = time.time() + timeout
        while time.time() < end:
            status = self.cmd('query-migrate').get('status')
            if status == 'completed':
                return
            if status == 'failed':
                raise RuntimeError('migration failed')
            time.sleep(0.02)
        raise RuntimeError('migration did not complete')
