class TimeJoin:
    params = ([64, 512], ['str', 'bytes'])
    param_names = ['length', 'kind']
    repeat = 5
    number = 20
    warmup_time = 0

    def setup(self, length, kind):
        self.parts = ['x'] * length if kind == 'str' else [b'x'] * length
        self.sep = '' if kind == 'str' else b''

    def time_join(self, length, kind):
        self.sep.join(self.parts)
