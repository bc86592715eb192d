# Makes the fuzz seeds: pickles shaped as qdrant_client/local/persistence.py
# persist() writes them (pickle.dumps of a pydantic v2 PointStruct, whose
# __getstate__ gives __dict__, __pydantic_extra__, __pydantic_fields_set__,
# __pydantic_private__), with a stand-in class of the same module and name
# so that qdrant-client need not be installed. Run: python3 mkseeds.py
import pickle, sys, types, base64
for name in ('qdrant_client', 'qdrant_client.http', 'qdrant_client.http.models', 'qdrant_client.http.models.models'):
    sys.modules[name] = types.ModuleType(name)
mod = sys.modules['qdrant_client.http.models.models']
class PointStruct:
    def __init__(self, id, vector, payload):
        self.__dict__.update(id=id, vector=vector, payload=payload)
    def __getstate__(self):
        return {'__dict__': dict(self.__dict__), '__pydantic_extra__': None,
                '__pydantic_fields_set__': {'id', 'vector', 'payload'}, '__pydantic_private__': None}
PointStruct.__module__ = mod.__name__
mod.PointStruct = PointStruct
p = PointStruct('43bf945d-a48e-4ba5-a96d-6170564bf14b', [0.25, -0.5, 1.0],
                {'user_id': 'u1', 'data': 'Loves Italian cuisine', 'hash': '6fc7974531bb9018d706ad419e88fac6',
                 'created_at': '2025-10-19T12:45:23-07:00', 'metadata': {'a': [1, 2.5, None, True]}})
for proto in (4, 5):
    open('point-p%d.pickle' % proto, 'wb').write(pickle.dumps(p, protocol=proto))
    open('key-p%d.txt' % proto, 'w').write(base64.b64encode(pickle.dumps(p.id, protocol=proto)).decode())
q = PointStruct(7, {'dense': [1.0, 2.0]}, None)
open('point-named.pickle', 'wb').write(pickle.dumps(q, protocol=4))
